import {
  type ActionRowBuilder,
  type ButtonBuilder,
  type ChatInputCommandInteraction,
  MessageFlags,
} from "discord.js";
import { interactionMessage } from "./interaction-message.ts";
import { TOKEN_LIFETIME_MS } from "./shared-interactions.ts";

interface PendingReply {
  readonly interaction: ChatInputCommandInteraction;
  /** Set when the command started a conversation of its own (used in a top-level channel). */
  readonly conversationRoot: string | undefined;
  readonly ephemeral: boolean;
  readonly expiresAt: number;
  answered: boolean;
}

/**
 * Answers to a slash command go through its interaction (the deferred "thinking…" reply is
 * edited, later chunks are follow-ups), not into the channel — keyed by the message id the
 * command was handed to the engine under.
 */
export class InteractionReplies {
  readonly #pending = new Map<string, PendingReply>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  add(
    messageId: string,
    interaction: ChatInputCommandInteraction,
    options: { ephemeral: boolean; conversationRoot?: string },
  ): void {
    this.#sweep();
    this.#pending.set(messageId, {
      interaction,
      ephemeral: options.ephemeral,
      conversationRoot: options.conversationRoot,
      expiresAt: interaction.createdTimestamp + TOKEN_LIFETIME_MS,
      answered: false,
    });
  }

  /**
   * Whether a conversation is a command's own, still being answered through its interaction:
   * Discord already shows "is thinking…" there, and typing in the channel would only tell
   * everyone about a possibly private answer.
   */
  isAnsweringConversation(rootId: string): boolean {
    const now = this.#now();
    for (const pending of this.#pending.values()) {
      if (pending.conversationRoot === rootId && !pending.answered && pending.expiresAt > now) return true;
    }
    return false;
  }

  /** Whether an answer to `messageId` should go through an interaction that can still be used. */
  routes(messageId: string | undefined): messageId is string {
    const pending = messageId === undefined ? undefined : this.#pending.get(messageId);
    return pending !== undefined && pending.expiresAt > this.#now();
  }

  /** Posts one chunk through the interaction; returns the posted message id. */
  async post(
    messageId: string,
    content: string,
    components?: readonly ActionRowBuilder<ButtonBuilder>[],
  ): Promise<string> {
    const pending = this.#pending.get(messageId);
    if (!pending) throw new Error(`no interaction is waiting for an answer to ${messageId}`);
    const message = interactionMessage(content, components);
    if (!pending.answered) {
      const edited = await pending.interaction.editReply(message);
      pending.answered = true;
      return edited.id;
    }
    const followUp = await pending.interaction.followUp({
      ...message,
      ...(pending.ephemeral ? { flags: MessageFlags.Ephemeral } : {}),
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
    const pending = this.#pending.get(messageId);
    if (!pending) throw new Error(`no interaction answers ${messageId} any more`);
    await pending.interaction.editReply({ message: postedId, ...interactionMessage(content, components) });
  }

  #sweep(): void {
    const now = this.#now();
    for (const [id, pending] of this.#pending) if (pending.expiresAt <= now) this.#pending.delete(id);
  }
}
