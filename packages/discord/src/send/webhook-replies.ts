import {
  type ActionRowBuilder,
  type ButtonBuilder,
  type Client,
  InteractionWebhook,
  MessageFlags,
} from "discord.js";
import { interactionMessage } from "./interaction-message.ts";
import type { SharedInteraction, SharedInteractions } from "./shared-interactions.ts";

/**
 * An answer to a slash command whose interaction token this process cannot use: it was never
 * recorded in the shared store (the receiving process had none), or it expired (15 minutes after
 * the command). Posting it into the channel instead could show an ephemeral answer to everyone,
 * so it is not delivered.
 */
export class InteractionOutOfReachError extends Error {
  constructor(messageId: string) {
    super(
      `the answer to the slash command ${messageId} must go through its interaction, whose token is not in the shared store: it expired (Discord accepts answers for 15 minutes) or the process that received the command had no store; it is not posted into the channel, where a private answer would be public`,
    );
    this.name = "InteractionOutOfReachError";
  }
}

/**
 * Answers a slash command through its interaction's webhook, from the application id and token
 * the receiving process kept in the shared store — the REST calls `editReply` and `followUp` make
 * (`PATCH /webhooks/{app}/{token}/messages/@original`, `POST /webhooks/{app}/{token}`), with no
 * gateway and no interaction object. What a user sees is the same as from the receiving process.
 */
export class WebhookReplies {
  readonly #client: Client;
  readonly #shared: SharedInteractions;

  constructor(client: Client, shared: SharedInteractions) {
    this.#client = client;
    this.#shared = shared;
  }

  /**
   * Posts one chunk of the answer to `messageId`: the deferred reply first, then follow-ups (the
   * caller records each post, see SharedInteractions.recordPost).
   */
  async post(
    messageId: string,
    content: string,
    components?: readonly ActionRowBuilder<ButtonBuilder>[],
  ): Promise<string> {
    const record = await this.#reachable(messageId);
    const webhook = this.#webhook(record);
    const message = interactionMessage(content, components);
    if (!record.answered) return (await webhook.editMessage("@original", message)).id;
    const followUp = await webhook.send({
      ...message,
      ...(record.ephemeral ? { flags: MessageFlags.Ephemeral } : {}),
    });
    return followUp.id;
  }

  /** Edits a message posted through the interaction of `messageId` (the reply or a follow-up). */
  async edit(
    messageId: string,
    postedId: string,
    content: string,
    components?: readonly ActionRowBuilder<ButtonBuilder>[],
  ): Promise<void> {
    const record = await this.#reachable(messageId);
    await this.#webhook(record).editMessage(postedId, interactionMessage(content, components));
  }

  async #reachable(messageId: string): Promise<SharedInteraction> {
    const record = await this.#shared.find(messageId);
    if (!record) throw new InteractionOutOfReachError(messageId);
    return record;
  }

  #webhook(record: SharedInteraction): InteractionWebhook {
    // Typed for a logged-in client, but an interaction webhook only uses the client's REST (token-less calls).
    return new InteractionWebhook(this.#client as Client<true>, record.applicationId, record.token);
  }
}
