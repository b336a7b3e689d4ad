import pLimit from "p-limit";
import type { Clock } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";
import type { LiveSessions } from "./active-sessions.ts";
import type { ArchivedSession } from "./archive/archive-store.ts";
import type { MemoryInvoker } from "./memory-invoker.ts";

/** How many quiet sessions one read brings back. */
const SWEEP_BATCH = 200;
/**
 * Sessions archived at once. Archiving is a memory run per session — a flush and a summary, each a
 * model call of seconds with a real model — so one at a time, a thousand conversations going quiet
 * together took over an hour to archive, and meanwhile their sessions stayed live and their
 * histories (every later turn's checkpoint and prompt) kept growing. Each conversation's memory
 * work stays in order (its own queue); the model endpoint's own limit still shapes the calls.
 */
export const SWEEP_CONCURRENCY = 8;

export interface IdleSweeperOptions {
  readonly sessions: LiveSessions;
  readonly invoker: Pick<MemoryInvoker, "endIfIdle">;
  readonly idleMs: number;
  readonly clock: Clock;
  readonly logger: Logger;
  /** How often `start()` sweeps (default a minute, or a quarter of the idle time if shorter). */
  readonly intervalMs?: number;
}

/**
 * Archives sessions that have been quiet for the idle time. The index of live sessions is in the
 * store, so sessions left live by a restart are archived too; a sweep reads only the quiet ones.
 * Tests call `sweep()` with a fake clock; so does a cluster, whose rounds run once per cluster.
 */
export class IdleSweeper {
  readonly #options: IdleSweeperOptions;
  #timer: NodeJS.Timeout | undefined;
  #sweeping: Promise<ArchivedSession[]> | undefined;

  constructor(options: IdleSweeperOptions) {
    this.#options = options;
  }

  /** One pass; a pass already running is joined rather than doubled. Returns what was archived. */
  sweep(): Promise<ArchivedSession[]> {
    this.#sweeping ??= this.#sweepOnce().finally(() => {
      this.#sweeping = undefined;
    });
    return this.#sweeping;
  }

  /** How often `start()` sweeps; a cluster schedules its rounds at the same pace. */
  get intervalMs(): number {
    const { idleMs, intervalMs } = this.#options;
    return intervalMs ?? Math.max(1_000, Math.min(60_000, Math.floor(idleMs / 4)));
  }

  /** Sweeps on this process's timer (one process); a cluster calls `sweep()` once per cluster instead. */
  start(): void {
    if (this.#timer) return;
    const { logger } = this.#options;
    this.#timer = setInterval(() => {
      this.sweep().catch((error: unknown) => logger.error("idle session sweep failed", { error }));
    }, this.intervalMs);
    // Housekeeping never keeps the process alive.
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  async #sweepOnce(): Promise<ArchivedSession[]> {
    const { sessions, invoker, idleMs, clock, logger } = this.#options;
    const archived: ArchivedSession[] = [];
    // Reads only the sessions quiet for the idle time, batch by batch. A session that turns out
    // busy (a turn began in this process) keeps its entry, so `tried` keeps it from being read twice.
    const tried = new Set<string>();
    for (;;) {
      const quiet = (await sessions.quietSince(clock.now() - idleMs, SWEEP_BATCH)).filter(
        ([key]) => !tried.has(key),
      );
      if (quiet.length === 0) return archived;
      const limit = pLimit(SWEEP_CONCURRENCY);
      await Promise.all(
        quiet.map(([key]) => {
          tried.add(key);
          return limit(async () => {
            try {
              const session = await invoker.endIfIdle(key);
              if (session) archived.push(session);
            } catch (error) {
              logger.error("could not archive an idle session; the next sweep tries again", { key, error });
            }
          });
        }),
      );
    }
  }
}
