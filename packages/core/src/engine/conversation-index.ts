import type Keyv from "keyv";
import { LRUCache } from "lru-cache";
import type { Store } from "../store/types.ts";

/** Bot messages stay resolvable this long: a reply to one continues its conversation. */
const POSTED_MESSAGE_TTL_MS = 180 * 24 * 60 * 60 * 1000;
const MAX_REMEMBERED = 50_000;

/**
 * Where the bot has spoken, kept in the store (never only in memory) so every instance and every
 * restart agrees: which conversation each bot message belongs to, and which conversations the bot
 * takes part in (those continue without a mention).
 */
export class ConversationIndex {
  readonly #posted: Keyv<string>;
  readonly #participating: Keyv<boolean>;
  /**
   * Conversations this process has seen the bot take part in. Participation is never withdrawn,
   * so remembering it saves a store write per answer and a read per message; bounded by clearing.
   */
  readonly #knownParticipating = new LRUCache<string, true>({ max: MAX_REMEMBERED });

  constructor(store: Store) {
    this.#posted = store.namespace<string>("posted");
    this.#participating = store.namespace<boolean>("participating");
  }

  async rememberPosted(platform: string, messageId: string, conversationKey: string): Promise<void> {
    await this.#posted.set(`${platform}:${messageId}`, conversationKey, POSTED_MESSAGE_TTL_MS);
  }

  /** The conversation a bot message was posted in; undefined when it is not one of ours. */
  async conversationOfBotMessage(platform: string, messageId: string): Promise<string | undefined> {
    return (await this.#posted.get(`${platform}:${messageId}`)) ?? undefined;
  }

  async markParticipating(conversationKey: string): Promise<void> {
    if (this.#knownParticipating.has(conversationKey)) return;
    await this.#participating.set(conversationKey, true);
    this.#remember(conversationKey);
  }

  async isParticipating(conversationKey: string): Promise<boolean> {
    if (this.#knownParticipating.has(conversationKey)) return true;
    const participating = (await this.#participating.get(conversationKey)) === true;
    if (participating) this.#remember(conversationKey);
    return participating;
  }

  #remember(conversationKey: string): void {
    this.#knownParticipating.set(conversationKey, true);
  }
}
