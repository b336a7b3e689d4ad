import type { Logger } from "@switchboard/core";
import type { RecoveryReport, ScheduledDrainOutcome } from "@switchboard/core/host";
import { DelayedError, type Job, Worker } from "bullmq";
import type { BullConnection } from "./bullmq-connection.ts";
import { DRAIN_JOB_OPTIONS, DRAIN_QUEUE, type DrainJobData } from "./drain-jobs.ts";
import type { DrainQueue } from "./drain-queue.ts";
import { jobLockOptions, lockedElsewhereDelayMs } from "./takeover.ts";

/** The engine, as a worker sees it. */
export interface DrainTarget {
  drainScheduled(key: string): Promise<ScheduledDrainOutcome>;
  queuedWork(key: string): Promise<number>;
  runRecoveryRound(): Promise<RecoveryReport>;
}

/** Hears what drains do (metrics). */
export interface DrainObserver {
  /** A drain began, `waitedMs` after its job was queued. */
  started(waitedMs: number): void;
  finished(outcome: ScheduledDrainOutcome | "failed", durationMs: number): void;
  stalled(): void;
}

export interface DrainWorkerOptions {
  readonly bull: BullConnection;
  readonly engine: DrainTarget;
  /** Where a conversation that still has work after its drain is announced again. */
  readonly queue: DrainQueue;
  /** Conversations drained at once in this process. */
  readonly concurrency: number;
  /** A drain whose worker stops renewing its job lock this long (it died) goes to another worker. */
  readonly jobLockMs: number;
  /** The conversation lock's TTL: a conversation locked by a dead holder is free within it. */
  readonly lockTtlMs: number;
  readonly logger: Logger;
  readonly observer?: DrainObserver;
}

/**
 * The consuming side: takes "drain conversation K" jobs and drains K's durable queue under the
 * conversation lock (the engine's serializer, the same as in one process). BullMQ's job lock and
 * stalled-job check give a dead worker's drains to a live one; the conversation lock keeps them
 * from ever running twice at once.
 */
export class DrainWorker {
  readonly #options: DrainWorkerOptions;
  #worker: Worker<DrainJobData> | undefined;

  constructor(options: DrainWorkerOptions) {
    this.#options = options;
  }

  start(): void {
    const { bull, concurrency, jobLockMs, logger, observer } = this.#options;
    const worker = new Worker<DrainJobData>(DRAIN_QUEUE, (job, token) => this.#process(job, token), {
      connection: bull.connection,
      prefix: bull.prefix,
      concurrency,
      // Taken within jobLockMs of a worker's death (./takeover.ts).
      ...jobLockOptions(jobLockMs),
      // A job that stalls again and again is failed (freeing its id); the recovery sweep reschedules it.
      maxStalledCount: 5,
    });
    worker.on("completed", (job) => void this.#afterDrain(job.data.key));
    worker.on("failed", (job, error) => {
      if (!job || error instanceof DelayedError) return;
      logger.warn("drain failed; BullMQ tries it again with backoff", {
        key: job.data.key,
        attempt: job.attemptsMade,
        error,
      });
      if (job.attemptsMade >= (DRAIN_JOB_OPTIONS.attempts ?? 1)) void this.#afterDrain(job.data.key);
    });
    worker.on("stalled", (jobId) => {
      observer?.stalled();
      logger.warn("a drain stalled (its worker died or hung); another worker takes it", { jobId });
    });
    worker.on("error", (error) => logger.warn("BullMQ worker error", { error }));
    this.#worker = worker;
  }

  /** Stops taking jobs and waits for the running drains (cancelled turns fail back to BullMQ). */
  async close(): Promise<void> {
    await this.#worker?.close();
    this.#worker = undefined;
  }

  async #process(job: Job<DrainJobData>, token: string | undefined): Promise<void> {
    const { engine, observer, lockTtlMs } = this.#options;
    const began = Date.now();
    observer?.started(began - job.timestamp);
    let outcome: ScheduledDrainOutcome;
    try {
      outcome = await engine.drainScheduled(job.data.key);
    } catch (error) {
      observer?.finished("failed", Date.now() - began);
      throw error;
    }
    observer?.finished(outcome, Date.now() - began);
    if (outcome === "locked-elsewhere") {
      // A holder that died keeps the lock until its TTL ends, at a moment we cannot know: look
      // again soon, so the conversation runs within about a second of the lapse.
      await job.moveToDelayed(Date.now() + lockedElsewhereDelayMs(lockTtlMs), token);
      throw new DelayedError();
    }
  }

  /**
   * Runs after the job is gone (its id free again): a message queued while the drain ended found
   * the job still there and could not queue another one, so whatever is left is announced now.
   */
  async #afterDrain(key: string): Promise<void> {
    try {
      if ((await this.#options.engine.queuedWork(key)) > 0) await this.#options.queue.schedule(key);
    } catch (error) {
      this.#options.logger.warn("could not look for work left after a drain; the next sweep does", {
        key,
        error,
      });
    }
  }
}
