import type Keyv from "keyv";
import type { SortedSets } from "../store/sorted-sets.ts";
import type { Store } from "../store/types.ts";
import type { RetryRecord } from "./retry-record.ts";

/**
 * Waiting retries by due time, one member per try (`<id>:<attempt>`): the firer takes a try out
 * after queueing it without touching the next try the run may already have put in.
 */
const DUE_SET = "retry-later:due";
/** Ended retries are kept this long after their last change (the console, a late crash re-run). */
const KEPT_MS = 2 * 24 * 3_600_000;

export interface DueTry {
  readonly id: string;
  readonly attempt: number;
  readonly dueAt: number;
}

/**
 * Retry records, the due index the firer reads, and the one waiting retry of each thread. A record
 * is written before its index entries; readers drop entries whose record has moved on, so an index
 * can lag a crash but never revive a retry.
 */
export class RetryStore {
  readonly #records: Keyv<RetryRecord>;
  /** Thread key → id of the retry waiting there. */
  readonly #threads: Keyv<string>;
  readonly #sets: SortedSets;
  readonly #now: () => number;

  constructor(store: Store, now: () => number) {
    this.#records = store.namespace<RetryRecord>("retry-later");
    this.#threads = store.namespace<string>("retry-later-threads");
    this.#sets = store.sortedSets;
    this.#now = now;
  }

  get(id: string): Promise<RetryRecord | undefined> {
    return this.#records.get(id);
  }

  /** The retry waiting in a thread, if any (one store read: what every newer message pays). */
  async waitingIn(key: string): Promise<RetryRecord | undefined> {
    const id = await this.#threads.get(key);
    if (id === undefined) return undefined;
    const record = await this.get(id);
    return record?.status === "waiting" ? record : undefined;
  }

  /** The record, then its thread pointer and its due entry. */
  async save(record: RetryRecord): Promise<void> {
    const ttl = Math.max(0, record.dueAt - this.#now()) + KEPT_MS;
    await this.#records.set(record.id, record, ttl);
    if (record.status === "waiting") {
      await this.#threads.set(record.key, record.id, ttl);
      await this.#sets.apply([
        { set: DUE_SET, member: `${record.id}:${record.attempt}`, score: record.dueAt },
      ]);
      return;
    }
    if ((await this.#threads.get(record.key)) === record.id) await this.#threads.delete(record.key);
    await this.#sets.apply([{ set: DUE_SET, member: `${record.id}:${record.attempt}`, score: null }]);
  }

  /** Tries due by `now`, the most overdue first. */
  async dueBy(now: number, limit: number): Promise<DueTry[]> {
    const members = await this.#sets.upTo(DUE_SET, now, limit);
    return members.map(({ member, score }) => {
      const split = member.lastIndexOf(":");
      return { id: member.slice(0, split), attempt: Number(member.slice(split + 1)), dueAt: score };
    });
  }

  /** When the earliest try is due (undefined: none waits). */
  async nextDueAt(): Promise<number | undefined> {
    const [first] = await this.#sets.upTo(DUE_SET, Number.POSITIVE_INFINITY, 1);
    return first?.score;
  }

  /** Takes one try out of the due index (it was queued, or its record moved on). */
  async unindex(id: string, attempt: number): Promise<void> {
    await this.#sets.apply([{ set: DUE_SET, member: `${id}:${attempt}`, score: null }]);
  }

  /** Tries waiting now (metrics). */
  waiting(): Promise<number> {
    return this.#sets.count(DUE_SET);
  }
}
