import type { ActionRowBuilder, ButtonBuilder, ChatInputCommandInteraction, Client } from "discord.js";
import { LRUCache } from "lru-cache";
import { InteractionReplies } from "./interaction-replies.ts";
import type { SharedInteractions } from "./shared-interactions.ts";
import { InteractionOutOfReachError, WebhookReplies } from "./webhook-replies.ts";

type Buttons = readonly ActionRowBuilder<ButtonBuilder>[] | undefined;

/** Interaction tokens expire after 15 minutes; a few thousand recent posts cover every live one. */
const REMEMBERED_POSTS = 5_000;

/**
 * The one owner of how an answer to a slash command reaches its user: always through the
 * command's interaction, never into the channel (the answer may be private). The process that
 * received the command uses the interaction object it holds; any other process — a worker, this
 * one after a restart — uses the token kept in the shared store. With neither, the answer is
 * refused with InteractionOutOfReachError.
 */
export class CommandAnswers {
  readonly #replies = new InteractionReplies();
  readonly #shared: SharedInteractions | undefined;
  readonly #client: () => Client;
  /** Messages posted through a slash command's interaction, by id → the command's message id. */
  readonly #viaInteraction = new LRUCache<string, string>({ max: REMEMBERED_POSTS });

  constructor(shared: SharedInteractions | undefined, client: () => Client) {
    this.#shared = shared;
    this.#client = client;
  }

  /** A command was received here: its interaction answers it, and the store keeps it for the others. */
  async expect(
    messageId: string,
    interaction: ChatInputCommandInteraction,
    options: { ephemeral: boolean; conversationRoot: string | undefined },
  ): Promise<void> {
    const { ephemeral, conversationRoot } = options;
    this.#replies.add(messageId, interaction, {
      ephemeral,
      ...(conversationRoot === undefined ? {} : { conversationRoot }),
    });
    await this.#shared?.keep(
      messageId,
      {
        applicationId: interaction.applicationId,
        token: interaction.token,
        ephemeral,
        usedAt: interaction.createdTimestamp,
      },
      conversationRoot,
    );
  }

  /** Posts one chunk of the answer to the command `replyTo`; returns the posted message's id. */
  async post(replyTo: string, content: string, buttons: Buttons): Promise<string> {
    const id = this.#replies.routes(replyTo)
      ? await this.#replies.post(replyTo, content, buttons)
      : await this.#webhookReplies(replyTo).post(replyTo, content, buttons);
    this.#viaInteraction.set(id, replyTo);
    // Whichever process posts the next part, or edits this one, learns it from the store.
    await this.#shared?.recordPost(replyTo, id);
    return id;
  }

  /** The command a message was posted in answer to through its interaction (here or by another process). */
  async commandOf(postedId: string): Promise<string | undefined> {
    return this.#viaInteraction.get(postedId) ?? (await this.#shared?.originOf(postedId));
  }

  /** Edits a message posted through the interaction of the command `messageId`. */
  async edit(messageId: string, postedId: string, content: string, buttons: Buttons): Promise<void> {
    if (this.#replies.routes(messageId)) await this.#replies.edit(messageId, postedId, content, buttons);
    else await this.#webhookReplies(messageId).edit(messageId, postedId, content, buttons);
  }

  /**
   * Whether a conversation is a command's own, not answered yet (typing there would only tell
   * everyone about a possibly private answer). A worker never saw the command: it asks the store.
   */
  async isAnsweringConversation(rootId: string, sendOnly: boolean): Promise<boolean> {
    if (this.#replies.isAnsweringConversation(rootId)) return true;
    return sendOnly && this.#shared !== undefined && (await this.#shared.isAnsweringConversation(rootId));
  }

  #webhookReplies(messageId: string): WebhookReplies {
    if (!this.#shared) throw new InteractionOutOfReachError(messageId);
    return new WebhookReplies(this.#client(), this.#shared);
  }
}
