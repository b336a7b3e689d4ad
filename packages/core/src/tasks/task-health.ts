import type { Clock } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";
import type { AtomicStore } from "../store/types.ts";
import type { TaskScheduler } from "./task-driver.ts";
import type { TaskRecord } from "./task-record.ts";
import { leaseKey, type TaskRunner } from "./task-runner.ts";
import type { TaskStore } from "./task-store.ts";

const BATCH = 200;

export interface TaskHealthOptions {
  readonly store: TaskStore;
  readonly runner: TaskRunner;
  readonly atomic: AtomicStore;
  /** Where due tasks are announced (a cluster's job queue; this process's loop). */
  readonly scheduler: TaskScheduler;
  readonly report: (record: TaskRecord) => Promise<void>;
  /** Removes a deleted task's checkpoint thread. */
  readonly forgetThread: (taskId: string) => Promise<void>;
  readonly pausedExpiryMs: number;
  readonly retentionMs: number;
  /** A lapsed lease is this long at most: a task's lease-holder is alive if it holds it. */
  readonly leaseTtlMs: number;
  readonly clock: Clock;
  readonly logger: Logger;
}

export interface TaskHealthReport {
  readonly announced: number;
  readonly stuck: number;
  readonly expired: number;
  readonly reported: number;
  readonly deleted: number;
}

/**
 * The tasks' health monitor, one round at a time (this process's timer, or once per cluster): due
 * tasks announced again (a lost announcement, a crashed runner), stuck ones failed with a notice,
 * long-paused ones cancelled, endings a crash left unqueued queued, ended ones deleted after their
 * retention. Everything it reads is an index of what is due, never the whole store.
 */
export class TaskHealth {
  readonly #options: TaskHealthOptions;

  constructor(options: TaskHealthOptions) {
    this.#options = options;
  }

  async round(): Promise<TaskHealthReport> {
    const { store, clock, scheduler, logger } = this.#options;
    const now = clock.now();
    const due = await store.dueBy(now, BATCH);
    let stuck = 0;
    for (const record of due) {
      if (record.status === "running" && (await this.#failIfStuck(record, now))) stuck += 1;
      else await scheduler.schedule(record.id);
    }
    let expired = 0;
    for (const record of await store.pausedBefore(now - this.#options.pausedExpiryMs, BATCH)) {
      const hours = Math.round(this.#options.pausedExpiryMs / 3_600_000);
      await store.submitControl(record.id, {
        action: "expire",
        by: "switchboard",
        at: now,
        reason: `it stayed paused for more than ${hours} hour${hours === 1 ? "" : "s"}`,
      });
      if ((await this.#options.runner.applyControlsNow(record.id)) !== false) expired += 1;
    }
    let reported = 0;
    for (const record of await store.unreported(BATCH)) {
      await this.#options.report(record);
      await store.save({ ...record, reported: true }, record);
      reported += 1;
    }
    const deletedIds = await store.deleteEndedBefore(now - this.#options.retentionMs);
    for (const id of deletedIds) await this.#options.forgetThread(id);
    if (stuck + expired + reported > 0)
      logger.info("task health round", { stuck, expired, reported, deleted: deletedIds.length });
    return { announced: due.length - stuck, stuck, expired, reported, deleted: deletedIds.length };
  }

  /**
   * No step finished for twice the time a step may take on average: when a live runner holds the
   * task, it is told to fail it (its lease heartbeat ends the step); a task nobody holds is not
   * stuck — its runner died and the next driver takes it over from its last step.
   */
  async #failIfStuck(record: TaskRecord, now: number): Promise<boolean> {
    const { atomic, leaseTtlMs, store, logger } = this.#options;
    const allowedMs = Math.max((2 * record.wallTimeMs) / record.maxIterations, 2 * leaseTtlMs);
    const since = record.lastProgressAt ?? record.updatedAt;
    if (now - since <= allowedMs) return false;
    const probe = await atomic.acquireLock(leaseKey(record.id), 1_000);
    if (probe) {
      await atomic.releaseLock(leaseKey(record.id), probe);
      return false;
    }
    const minutes = Math.max(1, Math.round((now - since) / 60_000));
    logger.warn("task made no progress; failing it", { taskId: record.id, minutes });
    await store.submitControl(record.id, {
      action: "fail",
      by: "switchboard",
      at: now,
      reason: `it made no progress for ${minutes} minute${minutes === 1 ? "" : "s"} (stuck)`,
    });
    return true;
  }
}
