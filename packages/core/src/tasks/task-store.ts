import type Keyv from "keyv";
import { writeInOrder } from "../store/in-order.ts";
import type { SortedSetChange, SortedSets } from "../store/sorted-sets.ts";
import type { AtomicStore, QueueEntry, Store } from "../store/types.ts";
import {
  isTerminal,
  TASK_STATUSES,
  type TaskControl,
  type TaskRecord,
  type TaskStatus,
} from "./task-record.ts";

/** Tasks that may take a step, by when they may take it (the oldest first: tasks take turns). */
export const DUE_SET = "tasks:due";
/** Paused tasks by when they were paused: what expiry reads. */
const PAUSED_SET = "tasks:paused";
/** Ended tasks whose ending is not yet queued for their home thread. */
const UNREPORTED_SET = "tasks:unreported";
/** Ended tasks by when they ended: what retention deletes. */
const FINISHED_SET = "tasks:finished";
/** Every kept task by creation: the console's list. */
const ALL_SET = "tasks:all";
const statusSet = (status: TaskStatus) => `tasks:status:${status}`;
const homeSet = (key: string) => `tasks:home:${key}`;
const CONTROL_QUEUE = "task-controls:";
/** Every kept task of one thread, in the order they were started: /tasks reads one index. */
const MAX_LISTED = 200;

/** One step of a task's append-only log, in short. */
export interface TaskStepEntry {
  readonly iteration: number;
  /** `<task id>:<iteration>`; the next step's token, or null when this step ended the task. */
  readonly stepToken: string;
  readonly nextStepToken: string | null;
  /** What the model wrote this step (shortened). */
  readonly text: string;
  readonly toolCalls: readonly TaskToolCall[];
  /** Guidance people gave that this step was the first to hear. */
  readonly guidance: readonly string[];
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly costUsd: number;
  /** The model has no price: `costUsd` is 0 and the cost is unknown. */
  readonly unpriced?: true;
  readonly latencyMs: number;
  readonly at: number;
  readonly error?: string;
}

export interface TaskToolCall {
  readonly name: string;
  /** The arguments, shortened. */
  readonly args: string;
  /** The result, shortened. */
  readonly result: string;
  readonly status: "success" | "error";
}

/**
 * Task records, their indexes, their steps log and their control queues. Every index is a sorted
 * set written with the record's changes (what a sweep or a list reads is what is due, never the
 * whole store); a record is written before its index entries (or with them in one commit:
 * `writeInOrder`), and readers drop entries whose record is gone, so an index can lag a crash but
 * never revive a task.
 */
export class TaskStore {
  readonly #records: Keyv<TaskRecord>;
  readonly #steps: Keyv<TaskStepEntry>;
  readonly #sets: SortedSets;
  readonly #atomic: AtomicStore;
  readonly #stepsTtlMs: number;
  readonly #store: Store;

  constructor(store: Store, options: { retentionMs: number }) {
    this.#store = store;
    this.#records = store.namespace<TaskRecord>("tasks");
    this.#steps = store.namespace<TaskStepEntry>("task-steps");
    this.#sets = store.sortedSets;
    this.#atomic = store.atomic;
    this.#stepsTtlMs = options.retentionMs;
  }

  get(id: string): Promise<TaskRecord | undefined> {
    return this.#records.get(id);
  }

  /**
   * Writes a new task, or returns the one already written under its id: ids derive from the run and
   * tool call that start a task, so the same call run again after a crash finds its own task, and
   * lists it again where the crash came between its record and its index entries.
   */
  async create(record: TaskRecord): Promise<TaskRecord> {
    const existing = await this.get(record.id);
    if (existing) {
      await this.relist(existing);
      return existing;
    }
    await this.save(record, undefined);
    return record;
  }

  /**
   * Writes again the index entries a stored task's state calls for: a crash between its record and
   * its entries left it unlisted (never due, never run). Writing an entry that is there changes nothing.
   */
  async relist(record: TaskRecord): Promise<void> {
    const entries = indexChanges(record, undefined);
    if (entries.length > 0) await this.#sets.apply(entries);
  }

  /** The record, then its index entries (only those that changed); together where they land in one commit. */
  async save(record: TaskRecord, previous: TaskRecord | undefined): Promise<void> {
    const changes = indexChanges(record, previous);
    await writeInOrder(
      this.#store,
      () => this.#records.set(record.id, record),
      async () => {
        if (changes.length > 0) await this.#sets.apply(changes);
      },
    );
  }

  /** The thread's tasks, oldest first. */
  async inHome(key: string): Promise<TaskRecord[]> {
    return this.#listed(
      homeSet(key),
      await this.#sets.upTo(homeSet(key), Number.POSITIVE_INFINITY, MAX_LISTED),
    );
  }

  /** Tasks whose next step may start by `now`, the longest waiting first. */
  async dueBy(now: number, limit: number): Promise<TaskRecord[]> {
    return this.#listed(DUE_SET, await this.#sets.upTo(DUE_SET, now, limit));
  }

  /** Tasks paused since before `before`. */
  async pausedBefore(before: number, limit: number): Promise<TaskRecord[]> {
    return this.#listed(PAUSED_SET, await this.#sets.upTo(PAUSED_SET, before, limit));
  }

  /** Ended tasks whose ending is not yet queued for their thread. */
  async unreported(limit: number): Promise<TaskRecord[]> {
    return this.#listed(
      UNREPORTED_SET,
      await this.#sets.upTo(UNREPORTED_SET, Number.POSITIVE_INFINITY, limit),
    );
  }

  /** The newest kept tasks (the console), newest first. */
  async newest(limit: number): Promise<TaskRecord[]> {
    const entries = await this.#sets.upTo(ALL_SET, Number.POSITIVE_INFINITY, 10_000);
    const records = await this.#listed(ALL_SET, entries.slice(-limit));
    return records.reverse();
  }

  /** How many tasks are in each status (metrics), from the status indexes. */
  async countsByStatus(): Promise<Record<TaskStatus, number>> {
    const counts = await Promise.all(TASK_STATUSES.map((status) => this.#sets.count(statusSet(status))));
    return Object.fromEntries(TASK_STATUSES.map((status, index) => [status, counts[index] ?? 0])) as Record<
      TaskStatus,
      number
    >;
  }

  /** Deletes ended tasks (and their steps) that ended before `before`; returns their ids. */
  async deleteEndedBefore(before: number, limit = 500): Promise<string[]> {
    const expired = (await this.#sets.upTo(FINISHED_SET, before, limit)).filter(
      (entry) => entry.score < before,
    );
    if (expired.length === 0) return [];
    const records = await this.#records.getMany(expired.map((entry) => entry.member));
    const changes: SortedSetChange[] = [];
    for (const [index, entry] of expired.entries()) {
      const record = records[index];
      changes.push({ set: FINISHED_SET, member: entry.member, score: null });
      if (!record) continue;
      for (const set of entriesOf(record).keys()) changes.push({ set, member: record.id, score: null });
      await this.#steps.deleteMany(stepKeys(record.id, record.iteration));
    }
    await this.#records.deleteMany(expired.map((entry) => entry.member));
    await this.#sets.apply(changes);
    return expired.map((entry) => entry.member);
  }

  /** One step's entry, written under its iteration: writing it again (a re-run after a crash) replaces it. */
  async writeStep(taskId: string, entry: TaskStepEntry): Promise<void> {
    await this.#steps.set(stepKey(taskId, entry.iteration), entry, this.#stepsTtlMs + 7 * 24 * 3_600_000);
  }

  /** The last `count` steps (all when absent), in order. */
  async steps(record: TaskRecord, count?: number): Promise<TaskStepEntry[]> {
    const from = count === undefined ? 1 : Math.max(1, record.iteration - count + 1);
    const keys = stepKeys(record.id, record.iteration).slice(from - 1);
    const entries = await this.#steps.getMany(keys);
    return entries.filter((entry): entry is TaskStepEntry => entry !== undefined);
  }

  /** Queues a control for whoever holds the task's lease (durable: a lease taken later applies it). */
  async submitControl(taskId: string, control: TaskControl): Promise<void> {
    await this.#atomic.enqueue(CONTROL_QUEUE + taskId, { item: JSON.stringify(control), order: control.at });
  }

  async pendingControls(taskId: string): Promise<{ entry: QueueEntry; control: TaskControl }[]> {
    const entries = await this.#atomic.peekAll(CONTROL_QUEUE + taskId);
    return entries.map((entry) => ({ entry, control: JSON.parse(entry.item) as TaskControl }));
  }

  /** True when a control waits that ends the step running now (checked by the lease's heartbeat). */
  async hasControls(taskId: string): Promise<boolean> {
    return (await this.#atomic.queueLength(CONTROL_QUEUE + taskId)) > 0;
  }

  async ackControls(taskId: string, entries: readonly QueueEntry[]): Promise<void> {
    for (const entry of entries) await this.#atomic.ack(CONTROL_QUEUE + taskId, entry.id);
  }

  async #listed(set: string, entries: ReadonlyArray<{ member: string }>): Promise<TaskRecord[]> {
    if (entries.length === 0) return [];
    const ids = entries.map((entry) => entry.member);
    const records = await this.#records.getMany(ids);
    const found: TaskRecord[] = [];
    const stale: SortedSetChange[] = [];
    records.forEach((record, index) => {
      if (record && entriesOf(record).has(set)) found.push(record);
      else stale.push({ set, member: ids[index] as string, score: null });
    });
    if (stale.length > 0) await this.#sets.apply(stale);
    return found;
  }
}

/** When a task's next step may start: a waiting task at its retry time, others in turn by last progress. */
export function dueAt(record: TaskRecord): number {
  return record.status === "waiting"
    ? (record.retryAt ?? record.updatedAt)
    : (record.lastProgressAt ?? record.createdAt);
}

function entriesOf(record: TaskRecord): Map<string, number> {
  const entries = new Map<string, number>([
    [ALL_SET, record.createdAt],
    [homeSet(record.home.key), record.createdAt],
    [statusSet(record.status), record.createdAt],
  ]);
  if (record.status === "queued" || record.status === "running" || record.status === "waiting")
    entries.set(DUE_SET, dueAt(record));
  if (record.status === "paused") entries.set(PAUSED_SET, record.pausedAt ?? record.updatedAt);
  if (isTerminal(record.status)) {
    entries.set(FINISHED_SET, record.finishedAt ?? record.updatedAt);
    if (!record.reported) entries.set(UNREPORTED_SET, record.finishedAt ?? record.updatedAt);
  }
  return entries;
}

/** The index changes that move `record`'s entries from where `previous` had them. */
export function indexChanges(record: TaskRecord, previous: TaskRecord | undefined): SortedSetChange[] {
  const wanted = entriesOf(record);
  const had = previous ? entriesOf(previous) : new Map<string, number>();
  const changes: SortedSetChange[] = [];
  for (const [set, score] of wanted)
    if (had.get(set) !== score) changes.push({ set, member: record.id, score });
  for (const set of had.keys()) if (!wanted.has(set)) changes.push({ set, member: record.id, score: null });
  return changes;
}

const stepKey = (taskId: string, iteration: number) => `${taskId}:${iteration}`;
const stepKeys = (taskId: string, iterations: number) =>
  Array.from({ length: iterations }, (_, index) => stepKey(taskId, index + 1));
