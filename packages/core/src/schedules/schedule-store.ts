import { setTimeout as sleep } from "node:timers/promises";
import type Keyv from "keyv";
import type { SortedSetChange, SortedSets } from "../store/sorted-sets.ts";
import type { AtomicStore, Store } from "../store/types.ts";
import {
  type FireEntry,
  isEnded,
  SCHEDULE_STATUSES,
  type ScheduleRecord,
  type ScheduleStatus,
} from "./schedule-record.ts";

/** Active schedules by their next fire: what the firing side reads (only what is due, never the whole store). */
const DUE_SET = "schedules:due";
/** Every kept schedule by creation: the console's list. */
const ALL_SET = "schedules:all";
/** Ended schedules by when they ended: what retention deletes. */
const ENDED_SET = "schedules:ended";
const statusSet = (status: ScheduleStatus) => `schedules:status:${status}`;
/** A person's schedules that may still fire (active or paused): their limit and their list. */
const ownerSet = (owner: string) => `schedules:owner:${owner}`;
/** Every kept schedule of one thread: /schedules reads one index. */
const homeSet = (key: string) => `schedules:home:${key}`;
const firesSet = (id: string) => `schedules:fires:${id}`;
/** Fires kept per schedule (the console's history); older ones are deleted as new ones come. */
const FIRES_KEPT = 50;
const MAX_LISTED = 500;
/** Holds a schedule while it fires or changes: long enough for a few store writes, short enough to outlive a crash quickly. */
const LOCK_TTL_MS = 15_000;

/** Who owns a schedule across platforms: `slack:U123`, or `config` for operators' schedules. */
export const ownerKeyOf = (record: Pick<ScheduleRecord, "ownerId" | "home" | "source">) =>
  record.source === "config" ? "config" : `${record.home.post.platform}:${record.ownerId}`;

/** Thrown when a schedule stays locked longer than a fire takes (its holder is stuck or died mid-change). */
export class ScheduleBusyError extends Error {
  constructor(id: string) {
    super(`schedule ${id} is being changed elsewhere; try again in a moment`);
    this.name = "ScheduleBusyError";
  }
}

/**
 * Schedule records, their indexes and their fire history. Every index is a sorted set written with
 * the record's changes; a record is written before its index entries, and readers drop entries
 * whose record is gone or no longer belongs, so an index can lag a crash but never revive a
 * schedule. Changes to one schedule (a fire, a pause) happen under its lock, so a pause is never
 * overwritten by a fire that read the record before it.
 */
export class ScheduleStore {
  readonly #records: Keyv<ScheduleRecord>;
  readonly #fires: Keyv<FireEntry>;
  readonly #sets: SortedSets;
  readonly #atomic: AtomicStore;
  readonly #retentionMs: number;

  constructor(store: Store, options: { retentionMs: number }) {
    this.#records = store.namespace<ScheduleRecord>("schedules");
    this.#fires = store.namespace<FireEntry>("schedule-fires");
    this.#sets = store.sortedSets;
    this.#atomic = store.atomic;
    this.#retentionMs = options.retentionMs;
  }

  get(id: string): Promise<ScheduleRecord | undefined> {
    return this.#records.get(id);
  }

  /** The record, then its index entries (only those that changed). */
  async save(record: ScheduleRecord, previous: ScheduleRecord | undefined): Promise<void> {
    await this.#records.set(record.id, record);
    const changes = indexChanges(record, previous);
    if (changes.length > 0) await this.#sets.apply(changes);
  }

  /**
   * Runs `change` on the current record under the schedule's lock and saves what it returns
   * (nothing: no change). Resolves with the saved record, or the unchanged one.
   */
  async update<T>(
    id: string,
    change: (record: ScheduleRecord) => Promise<{ record?: ScheduleRecord; result: T }>,
  ): Promise<T | undefined> {
    const lockKey = `schedule-lock:${id}`;
    let token: string | null = null;
    for (let attempt = 0; attempt < 40 && !token; attempt++) {
      token = await this.#atomic.acquireLock(lockKey, LOCK_TTL_MS);
      if (!token) await sleep(25 + attempt * 10);
    }
    if (!token) throw new ScheduleBusyError(id);
    try {
      const record = await this.get(id);
      if (!record) return undefined;
      const { record: changed, result } = await change(record);
      if (changed && changed !== record) await this.save(changed, record);
      return result;
    } finally {
      await this.#atomic.releaseLock(lockKey, token).catch(() => false);
    }
  }

  /** Active schedules due by `now`, the most overdue first. */
  async dueBy(now: number, limit: number): Promise<ScheduleRecord[]> {
    return this.#listed(DUE_SET, await this.#sets.upTo(DUE_SET, now, limit));
  }

  /** When the earliest active schedule is due (undefined: none is). */
  async nextDueAt(): Promise<number | undefined> {
    const [first] = await this.#sets.upTo(DUE_SET, Number.POSITIVE_INFINITY, 1);
    return first?.score;
  }

  /** A thread's kept schedules, oldest first. */
  async inHome(key: string): Promise<ScheduleRecord[]> {
    return this.#listed(
      homeSet(key),
      await this.#sets.upTo(homeSet(key), Number.POSITIVE_INFINITY, MAX_LISTED),
    );
  }

  /** A person's schedules that may still fire (`ownerKeyOf`), oldest first. */
  async ofOwner(owner: string): Promise<ScheduleRecord[]> {
    return this.#listed(
      ownerSet(owner),
      await this.#sets.upTo(ownerSet(owner), Number.POSITIVE_INFINITY, MAX_LISTED),
    );
  }

  /** How many schedules a person has that may still fire (their limit), from the index. */
  countOfOwner(owner: string): Promise<number> {
    return this.#sets.count(ownerSet(owner));
  }

  /** The newest kept schedules (the console), newest first. */
  async newest(limit: number): Promise<ScheduleRecord[]> {
    const entries = await this.#sets.upTo(ALL_SET, Number.POSITIVE_INFINITY, 10_000);
    return (await this.#listed(ALL_SET, entries.slice(-limit))).reverse();
  }

  /** How many schedules are in each status (metrics), from the status indexes. */
  async countsByStatus(): Promise<Record<ScheduleStatus, number>> {
    const counts = await Promise.all(SCHEDULE_STATUSES.map((status) => this.#sets.count(statusSet(status))));
    return Object.fromEntries(
      SCHEDULE_STATUSES.map((status, index) => [status, counts[index] ?? 0]),
    ) as Record<ScheduleStatus, number>;
  }

  /** Writes a fire's entry (again: replaced), keeping the newest FIRES_KEPT of the schedule. */
  async recordFire(entry: FireEntry): Promise<void> {
    await this.#fires.set(fireKey(entry.scheduleId, entry.dueAt), entry, this.#retentionMs);
    await this.#sets.apply([
      { set: firesSet(entry.scheduleId), member: String(entry.dueAt), score: entry.dueAt },
    ]);
    const count = await this.#sets.count(firesSet(entry.scheduleId));
    if (count <= FIRES_KEPT + 10) return;
    const oldest = await this.#sets.upTo(
      firesSet(entry.scheduleId),
      Number.POSITIVE_INFINITY,
      count - FIRES_KEPT,
    );
    await this.#fires.deleteMany(oldest.map((old) => fireKey(entry.scheduleId, old.score)));
    await this.#sets.apply(
      oldest.map((old) => ({ set: firesSet(entry.scheduleId), member: old.member, score: null })),
    );
  }

  fire(scheduleId: string, dueAt: number): Promise<FireEntry | undefined> {
    return this.#fires.get(fireKey(scheduleId, dueAt));
  }

  /** Changes a fire's entry (its outcome); nothing when it is gone. */
  async finishFire(scheduleId: string, dueAt: number, changes: Partial<FireEntry>): Promise<void> {
    const entry = await this.fire(scheduleId, dueAt);
    if (entry) await this.#fires.set(fireKey(scheduleId, dueAt), { ...entry, ...changes }, this.#retentionMs);
  }

  /** The schedule's newest fires, newest first. */
  async fires(scheduleId: string, limit = 20): Promise<FireEntry[]> {
    const entries = await this.#sets.upTo(firesSet(scheduleId), Number.POSITIVE_INFINITY, FIRES_KEPT + 10);
    const newest = entries.slice(-limit).reverse();
    const found = await this.#fires.getMany(newest.map((entry) => fireKey(scheduleId, entry.score)));
    return found.filter((entry): entry is FireEntry => entry !== undefined);
  }

  /** Deletes schedules that ended before `before` with their fires; returns their ids. */
  async deleteEndedBefore(before: number, limit = 500): Promise<string[]> {
    const expired = (await this.#sets.upTo(ENDED_SET, before, limit)).filter((entry) => entry.score < before);
    if (expired.length === 0) return [];
    const records = await this.#records.getMany(expired.map((entry) => entry.member));
    const changes: SortedSetChange[] = [];
    const deleted: string[] = [];
    for (const [index, entry] of expired.entries()) {
      const record = records[index];
      // Ended for good, so nothing revives it between this read and the delete.
      if (record && !isEnded(record.status)) {
        changes.push({ set: ENDED_SET, member: entry.member, score: null });
        continue;
      }
      deleted.push(entry.member);
      changes.push({ set: ENDED_SET, member: entry.member, score: null });
      if (record)
        for (const set of entriesOf(record).keys()) changes.push({ set, member: record.id, score: null });
      const fires = await this.#sets.upTo(firesSet(entry.member), Number.POSITIVE_INFINITY, FIRES_KEPT + 10);
      await this.#fires.deleteMany(fires.map((fire) => fireKey(entry.member, fire.score)));
      changes.push(
        ...fires.map((fire) => ({ set: firesSet(entry.member), member: fire.member, score: null })),
      );
    }
    await this.#records.deleteMany(deleted);
    await this.#sets.apply(changes);
    return deleted;
  }

  async #listed(set: string, entries: ReadonlyArray<{ member: string }>): Promise<ScheduleRecord[]> {
    if (entries.length === 0) return [];
    const ids = entries.map((entry) => entry.member);
    const records = await this.#records.getMany(ids);
    const found: ScheduleRecord[] = [];
    const stale: SortedSetChange[] = [];
    records.forEach((record, index) => {
      if (record && entriesOf(record).has(set)) found.push(record);
      else stale.push({ set, member: ids[index] as string, score: null });
    });
    if (stale.length > 0) await this.#sets.apply(stale);
    return found;
  }
}

function entriesOf(record: ScheduleRecord): Map<string, number> {
  const entries = new Map<string, number>([
    [ALL_SET, record.createdAt],
    [homeSet(record.home.key), record.createdAt],
    [statusSet(record.status), record.createdAt],
  ]);
  if (record.status === "active" && record.nextFireAt !== undefined) entries.set(DUE_SET, record.nextFireAt);
  if (isEnded(record.status)) entries.set(ENDED_SET, record.updatedAt);
  else entries.set(ownerSet(ownerKeyOf(record)), record.createdAt);
  return entries;
}

/** The index changes that move `record`'s entries from where `previous` had them. */
export function indexChanges(
  record: ScheduleRecord,
  previous: ScheduleRecord | undefined,
): SortedSetChange[] {
  const wanted = entriesOf(record);
  const had = previous ? entriesOf(previous) : new Map<string, number>();
  const changes: SortedSetChange[] = [];
  for (const [set, score] of wanted)
    if (had.get(set) !== score) changes.push({ set, member: record.id, score });
  for (const set of had.keys()) if (!wanted.has(set)) changes.push({ set, member: record.id, score: null });
  return changes;
}

const fireKey = (scheduleId: string, dueAt: number) => `${scheduleId}:${dueAt}`;
