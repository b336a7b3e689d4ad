import type Keyv from "keyv";
import { LRUCache } from "lru-cache";
import type { Clock } from "../runtime/clock.ts";
import { NO_TOKENS, type TokenCounts } from "../steps/run-step.ts";
import { BatchedWrites } from "../store/batched-writes.ts";
import { PartitionedLog } from "../store/partitioned-log.ts";
import type { Store } from "../store/types.ts";

const DAY_MS = 86_400_000;

/** The roll-ups: one total per day and per conversation, user, agent and model. */
export type UsageDimension = "conversation" | "user" | "agent" | "model";
export const USAGE_DIMENSIONS: readonly UsageDimension[] = ["conversation", "user", "agent", "model"];

export interface UsageTotals extends TokenCounts {
  readonly calls: number;
  /** USD of the calls whose model has a price. */
  readonly costUsd: number;
  /**
   * Calls to a model with no price: their cost is unknown, not zero, and `costUsd` leaves them out.
   * Absent in totals written before prices could be unknown (read as 0).
   */
  readonly unpricedCalls?: number;
}

export const NO_USAGE: UsageTotals = { ...NO_TOKENS, calls: 0, costUsd: 0, unpricedCalls: 0 };

/** One model call's usage, attributed. */
export interface UsageEvent extends TokenCounts {
  readonly at: number;
  readonly conversationKey: string;
  readonly userId?: string;
  readonly agent: string;
  readonly model: string;
  /** Undefined when the model has no price (see PriceTable): counted as unpriced, never as free. */
  readonly costUsd: number | undefined;
}

export interface UsageRow extends UsageTotals {
  readonly id: string;
}

/** `2026-11-23` (UTC), the unit every roll-up is kept in. */
export function usageDay(at: number): string {
  return new Date(at).toISOString().slice(0, 10);
}

/** The UTC days from `from` to `to`, both included, oldest first. */
export function daysBetween(from: number, to: number): string[] {
  const days: string[] = [];
  for (let day = Math.floor(from / DAY_MS); day <= Math.floor(to / DAY_MS); day += 1) {
    days.push(usageDay(day * DAY_MS));
  }
  return days;
}

/**
 * Token and cost roll-ups in the store, on every backend. keyv cannot add atomically, so every
 * process adds only to its own partition of a total (`<day>|<dimension>|<id>|<writer>`, written
 * by that process alone, in order) and readers sum the partitions; which ids and which writers a
 * day has is kept in a `PartitionedLog`. Reading one total costs a handful of keys, never a scan.
 */
export class UsageBook {
  readonly #totals: Keyv<UsageTotals>;
  readonly #ids: PartitionedLog<string>;
  readonly #ttlMs: number;
  readonly #writerId: string;
  readonly #known = new Set<string>();
  /**
   * This process's own partition of each total it wrote lately. While no total has been dropped
   * and the writer id is this process's own (the ids log's `knowsEveryCount`), a total missing here
   * was never written, and adding to it reads nothing.
   */
  readonly #ownTotals: LRUCache<string, UsageTotals>;
  #knowsEveryTotal: boolean;
  /** Calls recorded while earlier ones are being written go out together, next. */
  readonly #calls = new BatchedWrites<UsageEvent>((events) => this.#apply(events));

  constructor(store: Store, options: { retentionDays: number; clock: Clock; writerId?: string }) {
    this.#ttlMs = options.retentionDays * DAY_MS;
    this.#ids = new PartitionedLog(store, {
      name: "usage-ids",
      ttlMs: this.#ttlMs,
      ...(options.writerId ? { writerId: options.writerId } : {}),
    });
    this.#writerId = this.#ids.writerId;
    this.#knowsEveryTotal = this.#ids.knowsEveryCount;
    this.#ownTotals = new LRUCache<string, UsageTotals>({
      max: 20_000,
      dispose: (_totals, _key, reason) => {
        if (reason === "evict") this.#knowsEveryTotal = false;
      },
    });
    this.#totals = store.namespace<UsageTotals>("usage-totals");
  }

  /**
   * Adds one model call to every roll-up it belongs to. Calls are applied in order; calls recorded
   * while earlier ones are being written are added up here and written together, each total once
   * (a busy process's calls share their agent, model and user totals).
   */
  record(event: UsageEvent): Promise<void> {
    return this.#calls.add(event);
  }

  /** The sum of `id`'s totals over `days`. */
  async total(dimension: UsageDimension, id: string, days: readonly string[]): Promise<UsageTotals> {
    let sum = NO_USAGE;
    for (const day of days) {
      const writers = await this.#writersOf(day, dimension, id);
      const found = await this.#totals.getMany(writers.map((writer) => totalKey(day, dimension, id, writer)));
      for (const totals of found) if (totals) sum = addUsage(sum, totals);
    }
    return sum;
  }

  /** Every id with usage over `days`, highest cost first (tokens break ties). */
  async top(dimension: UsageDimension, days: readonly string[], limit = 10): Promise<UsageRow[]> {
    const ids = new Set<string>();
    for (const day of days)
      for (const id of (await this.#ids.read(`${day}|${dimension}`)).flat()) ids.add(id);
    const rows: UsageRow[] = [];
    for (const id of ids) rows.push({ id, ...(await this.total(dimension, id, days)) });
    return rows
      .sort(
        (a, b) => b.costUsd - a.costUsd || b.inputTokens + b.outputTokens - (a.inputTokens + a.outputTokens),
      )
      .slice(0, limit);
  }

  /** Resolves when every recorded call has been written. */
  async flushed(): Promise<void> {
    await this.#calls.flushed();
    await this.#ids.flushed();
  }

  async #apply(events: readonly UsageEvent[]): Promise<void> {
    const rows = events.flatMap((event) => {
      const day = usageDay(event.at);
      const dimensions: Array<[UsageDimension, string | undefined]> = [
        ["conversation", event.conversationKey],
        ["user", event.userId],
        ["agent", event.agent],
        ["model", event.model],
      ];
      return dimensions.flatMap(([dimension, id]) =>
        id === undefined
          ? []
          : [{ event, day, dimension, id, key: totalKey(day, dimension, id, this.#writerId) }],
      );
    });
    // This process's own partitions it does not hold: read once each, all at once.
    const unknown = this.#knowsEveryTotal
      ? []
      : [...new Set(rows.map((row) => row.key))].filter((key) => !this.#ownTotals.has(key));
    const found = unknown.length > 0 ? await this.#totals.getMany(unknown) : [];
    const stored = new Map(unknown.map((key, index) => [key, found[index]]));
    const after = new Map<string, UsageTotals>();
    const ids = new Map<string, readonly [string, UsageDimension, string]>();
    for (const { event, day, dimension, id, key } of rows) {
      const before = after.get(key) ?? this.#ownTotals.get(key) ?? stored.get(key) ?? NO_USAGE;
      after.set(
        key,
        addUsage(before, {
          ...event,
          calls: 1,
          costUsd: event.costUsd ?? 0,
          unpricedCalls: event.costUsd === undefined ? 1 : 0,
        }),
      );
      ids.set(`${day}|${dimension}|${id}`, [day, dimension, id]);
    }
    // The roll-ups are separate keys, written side by side (one commit on SQLite). An id's
    // registration goes out with its total: a total whose id is not registered yet is not read, an
    // id registered before its total reads as nothing.
    await Promise.all([
      ...[...ids.values()].map(([day, dimension, id]) => this.#register(day, dimension, id)),
      ...[...after].map(([key, totals]) => this.#totals.set(key, totals, this.#ttlMs)),
    ]);
    for (const [key, totals] of after) this.#ownTotals.set(key, totals);
  }

  /** The id joins the day's list once per process, and the id's own writer list names this process. */
  async #register(day: string, dimension: UsageDimension, id: string): Promise<void> {
    const known = `${day}|${dimension}|${id}`;
    if (this.#known.has(known)) return;
    await Promise.all([
      this.#ids.append(`${day}|${dimension}`, id),
      this.#ids.append(`${day}|${dimension}|${id}`, this.#writerId),
    ]);
    this.#known.add(known);
    if (this.#known.size > 50_000) this.#known.clear();
  }

  async #writersOf(day: string, dimension: UsageDimension, id: string): Promise<string[]> {
    return [...new Set((await this.#ids.read(`${day}|${dimension}|${id}`)).flat())];
  }
}

export function addUsage(a: UsageTotals, b: UsageTotals): UsageTotals {
  return {
    calls: a.calls + b.calls,
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cachedTokens: a.cachedTokens + b.cachedTokens,
    costUsd: a.costUsd + b.costUsd,
    unpricedCalls: (a.unpricedCalls ?? 0) + (b.unpricedCalls ?? 0),
  };
}

const totalKey = (day: string, dimension: UsageDimension, id: string, writer: string) =>
  `${day}|${dimension}|${id}|${writer}`;
