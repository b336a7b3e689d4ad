import type Keyv from "keyv";
import { writeInOrder } from "../store/in-order.ts";
import type { SortedSets } from "../store/sorted-sets.ts";
import type { Store } from "../store/types.ts";

/** A conversation with a live session, as the idle sweeper sees it. */
export interface LiveSession {
  readonly lastActivityAt: number;
  /** Users who wrote during the session (for user-scoped search of its archive). */
  readonly participants: readonly string[];
}

/** Live conversations by last activity: the idle sweeper reads the quiet end, never the whole list. */
const BY_ACTIVITY = "memory:live-sessions:by-activity";

/**
 * The index of conversations whose session is live, in the store so that a restart (or another
 * instance) still finds and archives them. One small record per live conversation, plus its
 * entry in a sorted set by last activity. The record is written first and removed last (or both
 * in one commit, where the store lands them so: `writeInOrder`), so the sorted set never names a
 * session without a record for long; a reader skips such an entry.
 */
export class LiveSessions {
  readonly #records: Keyv<LiveSession>;
  readonly #sets: SortedSets;
  readonly #store: Store;

  constructor(store: Store) {
    this.#store = store;
    this.#records = store.namespace<LiveSession>("memory-live-sessions");
    this.#sets = store.sortedSets;
  }

  async touch(key: string, userId: string | undefined, at: number): Promise<void> {
    const previous = await this.#records.get(key);
    const participants = previous?.participants ?? [];
    const withUser =
      userId === undefined || participants.includes(userId) ? participants : [...participants, userId];
    const lastActivityAt = Math.max(at, previous?.lastActivityAt ?? 0);
    await writeInOrder(
      this.#store,
      () => this.#records.set(key, { lastActivityAt, participants: withUser }),
      async () => {
        if (previous?.lastActivityAt !== lastActivityAt)
          await this.#sets.apply([{ set: BY_ACTIVITY, member: key, score: lastActivityAt }]);
      },
    );
  }

  get(key: string): Promise<LiveSession | undefined> {
    return this.#records.get(key);
  }

  remove(key: string): Promise<void> {
    return writeInOrder(
      this.#store,
      () => this.#sets.apply([{ set: BY_ACTIVITY, member: key, score: null }]),
      () => this.#records.delete(key),
    );
  }

  /** Conversations quiet since `before` or longer (by their last activity), quietest first, at most `limit`. */
  async quietSince(before: number, limit: number): Promise<Array<[string, LiveSession]>> {
    const entries = await this.#sets.upTo(BY_ACTIVITY, before, limit);
    if (entries.length === 0) return [];
    const keys = entries.map((entry) => entry.member);
    const records = await this.#records.getMany(keys);
    const found: Array<[string, LiveSession]> = [];
    records.forEach((record, index) => {
      if (record) found.push([keys[index] as string, record]);
    });
    return found;
  }

  /** How many conversations have a live session. */
  count(): Promise<number> {
    return this.#sets.count(BY_ACTIVITY);
  }
}
