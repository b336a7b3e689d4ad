import { z } from "zod";

/** The part of a core Store namespace (a Keyv) this file uses. */
export interface SharedKeyValue {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string, ttlMs?: number): Promise<unknown>;
}

/** Interaction tokens live 15 minutes; stop using one a little before Discord does. */
export const TOKEN_LIFETIME_MS = 14 * 60 * 1000;

const sharedInteractionSchema = z.object({
  applicationId: z.string().min(1),
  token: z.string().min(1),
  ephemeral: z.boolean(),
  /** When the token stops being used (TOKEN_LIFETIME_MS after the command was used). */
  expiresAt: z.number(),
  /** Whether the deferred "thinking…" reply has been replaced: later chunks are follow-ups. */
  answered: z.boolean(),
});

/** What any process needs to answer a slash command over REST, with no gateway and no interaction object. */
export type SharedInteraction = z.infer<typeof sharedInteractionSchema>;

const interactionKey = (messageId: string) => `interaction:${messageId}`;
const rootKey = (rootId: string) => `interaction-root:${rootId}`;
const postKey = (postedId: string) => `interaction-post:${postedId}`;

/**
 * Slash-command interactions in the shared store, so that a worker — which never saw the command —
 * answers it the way the receiving process would: through the interaction's webhook, never into
 * the channel. Keyed by what a worker holds when it delivers: the command's message id (the
 * answer's `replyTo`), the conversation root a channel-level command started, and the ids of the
 * messages posted through the interaction (for later edits). Every record expires with the token.
 */
export class SharedInteractions {
  readonly #kv: SharedKeyValue;
  readonly #now: () => number;

  constructor(kv: SharedKeyValue, now: () => number = Date.now) {
    this.#kv = kv;
    this.#now = now;
  }

  /** Written before the command is handed to the engine: a worker may take it at once. */
  async keep(
    messageId: string,
    interaction: Omit<SharedInteraction, "answered" | "expiresAt"> & { usedAt: number },
    conversationRoot?: string,
  ): Promise<void> {
    const { usedAt, ...rest } = interaction;
    const record: SharedInteraction = { ...rest, expiresAt: usedAt + TOKEN_LIFETIME_MS, answered: false };
    const ttl = this.#ttlUntil(record.expiresAt);
    if (ttl === undefined) return;
    await this.#kv.set(interactionKey(messageId), JSON.stringify(record), ttl);
    if (conversationRoot !== undefined) await this.#kv.set(rootKey(conversationRoot), messageId, ttl);
  }

  /** The interaction to answer `messageId` through, while its token can still be used. */
  async find(messageId: string): Promise<SharedInteraction | undefined> {
    const raw = await this.#kv.get(interactionKey(messageId));
    if (raw === undefined) return undefined;
    const parsed = sharedInteractionSchema.safeParse(JSON.parse(raw));
    return parsed.success && parsed.data.expiresAt > this.#now() ? parsed.data : undefined;
  }

  /**
   * A part of the answer to `messageId` was posted through its interaction, by whichever process:
   * the deferred reply is answered (the next part is a follow-up, never a second edit of it), and
   * the posted message can be edited later by any process.
   */
  async recordPost(messageId: string, postedId: string): Promise<void> {
    const record = await this.find(messageId);
    const ttl = record && this.#ttlUntil(record.expiresAt);
    if (!record || ttl === undefined) return;
    if (!record.answered)
      await this.#kv.set(interactionKey(messageId), JSON.stringify({ ...record, answered: true }), ttl);
    await this.#kv.set(postKey(postedId), messageId, ttl);
  }

  /** The command message id whose interaction posted `postedId`, while that interaction lasts. */
  async originOf(postedId: string): Promise<string | undefined> {
    return this.#kv.get(postKey(postedId));
  }

  /** Whether a conversation is a command's own and its interaction has not answered yet (see InteractionReplies). */
  async isAnsweringConversation(rootId: string): Promise<boolean> {
    const messageId = await this.#kv.get(rootKey(rootId));
    if (messageId === undefined) return false;
    const record = await this.find(messageId);
    return record !== undefined && !record.answered;
  }

  #ttlUntil(expiresAt: number): number | undefined {
    const ttl = Math.floor(expiresAt - this.#now());
    return ttl > 0 ? ttl : undefined;
  }
}
