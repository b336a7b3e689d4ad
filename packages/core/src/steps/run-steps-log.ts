import type Keyv from "keyv";
import type { Clock } from "../runtime/clock.ts";
import { type Logger, silentLogger } from "../runtime/logger.ts";
import { PartitionedLog } from "../store/partitioned-log.ts";
import type { Store } from "../store/types.ts";
import type { RunIdentity, RunStatus, RunStep, RunSummary, StepDetail } from "./run-step.ts";
import { summaryAfter } from "./run-summary.ts";

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** A run left open longer than this in one process is dropped from its in-memory totals. */
const MAX_ACTIVE_RUNS = 5_000;
/**
 * How long a running run's totals may wait in this process before they are written: a run that
 * finishes sooner (most: one model call) writes its summary twice — started, finished — instead of
 * once more per model call. Readers in this process see the totals at once (`#active`).
 */
const OPEN_TOTALS_DELAY_MS = 1_000;

export interface RunStepsLogOptions {
  readonly retentionDays: number;
  readonly clock: Clock;
  /** This process's partition of the append-only lists (tests use fixed ids for two "processes"). */
  readonly writerId?: string;
  /** Hears a failed write of a running run's totals (made from a timer, with no caller to tell). */
  readonly logger?: Logger;
}

/** What later features (the operator console, `/usage`) read; nothing here writes. */
export interface RunStepsReader {
  run(runId: string): Promise<RunSummary | undefined>;
  /** The run's steps in the order they happened. */
  steps(runId: string): Promise<RunStep[]>;
  /** The conversation's runs, newest first. */
  runsOfConversation(conversationKey: string, options?: { limit?: number }): Promise<RunSummary[]>;
  /** Runs started in [from, to), newest first. */
  runsBetween(from: number, to: number, options?: { limit?: number }): Promise<RunSummary[]>;
}

type StoredStep = StepDetail & { readonly runId: string; readonly at: number };

/**
 * The append-only history of every run: one list of steps per run, and two indexes of run ids —
 * per conversation and per hour — so each reader query touches only the keys it names, never
 * the whole store. Every key expires after the retention period.
 *
 * A run's totals are kept in this process while it runs (the process that runs it records its
 * model calls) and written when it starts, at most once per OPEN_TOTALS_DELAY_MS while it runs
 * (after a model call), and when it ends.
 */
export class RunStepsLog implements RunStepsReader {
  readonly #steps: PartitionedLog<StoredStep>;
  readonly #index: PartitionedLog<string>;
  readonly #summaries: Keyv<RunSummary>;
  readonly #active = new Map<string, RunSummary>();
  /** Runs being resumed: their stored totals are read before steps add to them. */
  readonly #resuming = new Map<string, Promise<void>>();
  readonly #summaryWrites = new Map<string, Promise<void>>();
  /** Runs whose totals changed since their last write, and the timer that writes them. */
  readonly #unsaved = new Map<string, NodeJS.Timeout>();
  readonly #ttlMs: number;
  readonly #clock: Clock;
  readonly #logger: Logger;

  constructor(store: Store, options: RunStepsLogOptions) {
    this.#logger = options.logger ?? silentLogger;
    this.#ttlMs = options.retentionDays * DAY_MS;
    this.#clock = options.clock;
    const partitions = { ttlMs: this.#ttlMs, ...(options.writerId ? { writerId: options.writerId } : {}) };
    this.#steps = new PartitionedLog(store, { name: "run-steps", ...partitions });
    this.#index = new PartitionedLog(store, { name: "run-index", ...partitions });
    this.#summaries = store.namespace<RunSummary>("run-summaries");
  }

  get retentionMs(): number {
    return this.#ttlMs;
  }

  async startRun(identity: RunIdentity, at: number = this.#clock.now()): Promise<void> {
    const summary: RunSummary = {
      ...identity,
      startedAt: at,
      status: "running",
      agents: [],
      modelCalls: 0,
      toolCalls: 0,
      inputTokens: 0,
      outputTokens: 0,
      cachedTokens: 0,
      costUsd: 0,
    };
    this.#track(summary);
    // Three separate keys, written side by side (one commit on SQLite).
    await Promise.all([
      this.#saveSummary(summary),
      this.#index.append(conversationBucket(identity.conversationKey), identity.runId),
      this.#index.append(hourBucket(at), identity.runId),
    ]);
  }

  /**
   * Continues recording a run started earlier, perhaps by another process or before a restart (a
   * background task's steps): its stored totals go on growing; a run never started is started.
   */
  async resumeRun(identity: RunIdentity, at: number = this.#clock.now()): Promise<void> {
    if (this.#active.has(identity.runId)) return;
    const pending = this.#resuming.get(identity.runId);
    if (pending) return pending;
    const resuming = (async () => {
      const stored = await this.#summaries.get(identity.runId);
      // What the earlier attempt ended with is not how this one ends.
      if (stored) this.#track({ ...withoutEnding(stored), status: "running" });
      else await this.startRun(identity, at);
    })().finally(() => this.#resuming.delete(identity.runId));
    this.#resuming.set(identity.runId, resuming);
    return resuming;
  }

  /** While the run is being resumed, when its stored totals are in; undefined otherwise (no wait). */
  #resumed(runId: string): Promise<void> | undefined {
    return this.#resuming.get(runId)?.catch(() => undefined);
  }

  /** Appends one step to the run's history (and its totals, while the run is open here). */
  async record(runId: string, detail: StepDetail, at: number = this.#clock.now()): Promise<void> {
    // Totals first, synchronously (once a resumed run's stored totals are in): a finishRun that
    // starts while the step is written still sees it.
    const resuming = this.#resumed(runId);
    if (resuming) await resuming;
    const active = this.#active.get(runId);
    const updated = active ? summaryAfter(active, detail) : undefined;
    if (updated) this.#active.set(runId, updated);
    if (updated && detail.kind === "model_call") this.#saveSoon(runId);
    await this.#steps.append(runId, { ...detail, runId, at });
  }

  async finishRun(
    runId: string,
    status: Exclude<RunStatus, "running">,
    options: { at?: number; error?: string } = {},
  ): Promise<RunSummary | undefined> {
    const resuming = this.#resumed(runId);
    if (resuming) await resuming;
    clearTimeout(this.#unsaved.get(runId));
    this.#unsaved.delete(runId);
    const open = this.#active.get(runId) ?? (await this.#summaries.get(runId));
    this.#active.delete(runId);
    if (!open) return undefined;
    const finished: RunSummary = {
      ...open,
      status,
      endedAt: options.at ?? this.#clock.now(),
      ...(options.error ? { error: options.error } : {}),
    };
    await this.#saveSummary(finished);
    return finished;
  }

  /** The run's totals so far, from this process's memory while it runs here. */
  openRun(runId: string): RunSummary | undefined {
    return this.#active.get(runId);
  }

  async run(runId: string): Promise<RunSummary | undefined> {
    return this.#active.get(runId) ?? (await this.#summaries.get(runId));
  }

  async steps(runId: string): Promise<RunStep[]> {
    const merged = (await this.#steps.read(runId)).flatMap((partition, p) =>
      partition.map((step, n) => ({ step, p, n })),
    );
    // Within one process the append order is the truth; across processes, time decides.
    merged.sort((a, b) => a.step.at - b.step.at || (a.p === b.p ? a.n - b.n : a.p - b.p));
    return merged.map(({ step }, seq) => ({ ...step, seq }) as RunStep);
  }

  async runsOfConversation(conversationKey: string, options: { limit?: number } = {}): Promise<RunSummary[]> {
    const ids = (await this.#index.read(conversationBucket(conversationKey))).flat();
    return this.#summariesOf(ids, options.limit ?? 50);
  }

  async runsBetween(from: number, to: number, options: { limit?: number } = {}): Promise<RunSummary[]> {
    const limit = options.limit ?? 100;
    const oldest = Math.max(from, this.#clock.now() - this.#ttlMs - HOUR_MS);
    const found: RunSummary[] = [];
    for (let hour = Math.floor((to - 1) / HOUR_MS); hour >= Math.floor(oldest / HOUR_MS); hour -= 1) {
      const ids = (await this.#index.read(`hour:${hour}`)).flat();
      const runs = await this.#summariesOf(ids, Number.POSITIVE_INFINITY);
      found.push(...runs.filter((run) => run.startedAt >= from && run.startedAt < to));
      if (found.length >= limit) break;
    }
    return found.sort(newestFirst).slice(0, limit);
  }

  /** Resolves when every step recorded so far is written (tests, shutdown). */
  async flushed(): Promise<void> {
    for (const runId of [...this.#unsaved.keys()]) this.#saveOpen(runId);
    await Promise.allSettled([...this.#summaryWrites.values()]);
    await this.#steps.flushed();
    await this.#index.flushed();
  }

  /** Writes the run's totals within OPEN_TOTALS_DELAY_MS unless it finishes first. */
  #saveSoon(runId: string): void {
    if (this.#unsaved.has(runId)) return;
    const timer = setTimeout(() => this.#saveOpen(runId), OPEN_TOTALS_DELAY_MS);
    // Housekeeping must not keep the process alive; a stop writes what is open (flushed).
    timer.unref();
    this.#unsaved.set(runId, timer);
  }

  #saveOpen(runId: string): void {
    clearTimeout(this.#unsaved.get(runId));
    this.#unsaved.delete(runId);
    const open = this.#active.get(runId);
    if (open)
      this.#saveSummary(open).catch((error: unknown) =>
        this.#logger.warn("could not record a running run's totals", { runId, error }),
      );
  }

  /** Summary writes of one run land in the order they were made: a late total never undoes "completed". */
  #saveSummary(summary: RunSummary): Promise<void> {
    const previous = this.#summaryWrites.get(summary.runId) ?? Promise.resolve();
    const next = previous
      .catch(() => undefined)
      .then(() => this.#summaries.set(summary.runId, summary, this.#ttlMs))
      .then(() => undefined);
    this.#summaryWrites.set(summary.runId, next);
    const forget = () => {
      if (this.#summaryWrites.get(summary.runId) === next) this.#summaryWrites.delete(summary.runId);
    };
    next.then(forget, forget);
    return next;
  }

  async #summariesOf(ids: readonly string[], limit: number): Promise<RunSummary[]> {
    const unique = [...new Set(ids)];
    const stored = await this.#summaries.getMany(unique);
    const runs = unique
      .map((id, index) => this.#active.get(id) ?? stored[index])
      .filter((run): run is RunSummary => run !== undefined);
    return runs.sort(newestFirst).slice(0, limit);
  }

  #track(summary: RunSummary): void {
    this.#active.set(summary.runId, summary);
    if (this.#active.size > MAX_ACTIVE_RUNS) {
      const oldest = this.#active.keys().next().value;
      if (oldest !== undefined) this.#active.delete(oldest);
    }
  }
}

const newestFirst = (a: RunSummary, b: RunSummary) => b.startedAt - a.startedAt;
const conversationBucket = (key: string) => `conversation:${key}`;
const hourBucket = (at: number) => `hour:${Math.floor(at / HOUR_MS)}`;

function withoutEnding(summary: RunSummary): RunSummary {
  const { endedAt: _endedAt, error: _error, ...rest } = summary;
  return rest;
}
