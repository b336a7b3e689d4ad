import type { DrainScheduler } from "@switchboard/core/host";
import { Queue } from "bullmq";
import type { BullConnection } from "./bullmq-connection.ts";
import { DRAIN_JOB, DRAIN_JOB_OPTIONS, DRAIN_QUEUE, type DrainJobData, drainJobId } from "./drain-jobs.ts";

/** What BullMQ holds right now, for metrics and the health page. */
export interface DrainQueueCounts {
  readonly waiting: number;
  readonly active: number;
  readonly delayed: number;
  readonly failed: number;
}

/** The producing side: the engine announces queued conversations here (ingress, and workers' continuations). */
export class DrainQueue implements DrainScheduler {
  readonly #queue: Queue<DrainJobData>;

  /** `onError`: connection trouble (BullMQ reconnects meanwhile; adding a job waits for it). */
  constructor(bull: BullConnection, onError: (error: Error) => void) {
    this.#queue = new Queue<DrainJobData>(DRAIN_QUEUE, { connection: bull.connection, prefix: bull.prefix });
    this.#queue.on("error", onError);
  }

  async schedule(key: string): Promise<void> {
    await this.#queue.add(DRAIN_JOB, { key }, { ...DRAIN_JOB_OPTIONS, jobId: drainJobId(key) });
  }

  async counts(): Promise<DrainQueueCounts> {
    const counts = await this.#queue.getJobCounts("waiting", "active", "delayed", "failed");
    return {
      waiting: counts.waiting ?? 0,
      active: counts.active ?? 0,
      delayed: counts.delayed ?? 0,
      failed: counts.failed ?? 0,
    };
  }

  /** Workers connected to the queue right now (BullMQ names its connections). */
  workerCount(): Promise<number> {
    return this.#queue.getWorkersCount();
  }

  /** Resolves once BullMQ reached Redis (start-up fails early on a wrong URL). */
  async ready(): Promise<void> {
    await this.#queue.waitUntilReady();
  }

  close(): Promise<void> {
    return this.#queue.close();
  }
}
