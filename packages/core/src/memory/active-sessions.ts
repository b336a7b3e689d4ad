import type Keyv from "keyv";
import type { Store } from "../store/types.ts";

/** A conversation with a live session, as the idle sweeper sees it. */
export interface LiveSession {
  readonly lastActivityAt: number;
  /** Users who wrote during the session (for user-scoped search of its archive). */
  readonly participants: readonly string[];
}

/**
 * The index of conversations whose session is live, in the store so that a restart (or another
 * instance) still finds and archives them. One small record per live conversation.
 */
export class LiveSessions {
  readonly #records: Keyv<LiveSession>;

  constructor(store: Store) {
    this.#records = store.namespace<LiveSession>("memory-live-sessions");
  }

  async touch(key: string, userId: string | undefined, at: number): Promise<void> {
    const previous = await this.#records.get(key);
    const participants = previous?.participants ?? [];
    const withUser =
      userId === undefined || participants.includes(userId) ? participants : [...participants, userId];
    await this.#records.set(key, {
      lastActivityAt: Math.max(at, previous?.lastActivityAt ?? 0),
      participants: withUser,
    });
  }

  get(key: string): Promise<LiveSession | undefined> {
    return this.#records.get(key);
  }

  async remove(key: string): Promise<void> {
    await this.#records.delete(key);
  }

  async list(): Promise<Array<[string, LiveSession]>> {
    if (!this.#records.iterator)
      throw new Error("the store cannot list live sessions (its keyv adapter cannot iterate)");
    const found: Array<[string, LiveSession]> = [];
    for await (const [key, value] of this.#records.iterator(undefined)) found.push([key, value]);
    return found;
  }
}
