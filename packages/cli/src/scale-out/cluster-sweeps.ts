import type { Logger } from "@switchboard/core";
import { Queue, Worker } from "bullmq";
import type { BullConnection } from "./bullmq-connection.ts";
import { jobLockOptions } from "./takeover.ts";

/** One sweeper the cluster runs once per round, not once per process. */
export interface ClusterSweep {
  /** Names its BullMQ queue (`sweep-<name>`) and job scheduler: keep it stable, it names Redis keys. */
  readonly name: string;
  readonly everyMs: number;
  /** One round; what it did (counts) goes to the log. */
  round(): Promise<Readonly<Record<string, number>>>;
}

export interface ClusterSweepsOptions {
  readonly bull: BullConnection;
  readonly sweeps: readonly ClusterSweep[];
  /** A round whose worker stopped renewing its job lock this long (it died) is run by another worker. */
  readonly jobLockMs: number;
  readonly logger: Logger;
  /** How long `close()` waits for a running round. */
  readonly closeGraceMs?: number;
}

const DEFAULT_CLOSE_GRACE_MS = 5_000;

/**
 * Sweepers that must run once per cluster, not once per process. Each sweep has its own queue and
 * job scheduler, upserted by every worker under the same id, so one schedule exists however many
 * workers start; each round is one job (its id names the round), taken by one worker. The queue's
 * global concurrency of 1 keeps rounds of one sweep from overlapping anywhere in the cluster: BullMQ
 * queues the next round as soon as one starts, and without the limit a round slower than its
 * interval would have a second copy started by another worker (two workers archiving one session).
 * Sweeps have separate queues so a slow round of one (memory's model calls) never delays another
 * (the recovery round).
 */
export class ClusterSweeps {
  readonly #options: ClusterSweepsOptions;
  readonly #queues: Queue[] = [];
  readonly #workers: Worker[] = [];

  constructor(options: ClusterSweepsOptions) {
    this.#options = options;
  }

  async start(): Promise<void> {
    for (const sweep of this.#options.sweeps) await this.#startSweep(sweep);
  }

  /**
   * Stops taking rounds and waits for a running one, but at most `closeGraceMs`: memory's round may
   * be in a model call, and shutdown goes on meanwhile (closing memory cuts its model calls short,
   * so the round ends; if the process is gone first, another worker runs the round again once its
   * job lock expired — rounds are idempotent).
   */
  async close(): Promise<void> {
    const closing = Promise.all(this.#workers.splice(0).map((worker) => worker.close()));
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.#options.closeGraceMs ?? DEFAULT_CLOSE_GRACE_MS);
    });
    await Promise.race([closing, grace]);
    clearTimeout(timer);
    await Promise.all(this.#queues.splice(0).map((queue) => queue.close()));
  }

  async #startSweep(sweep: ClusterSweep): Promise<void> {
    const { bull, jobLockMs, logger } = this.#options;
    const { connection, prefix } = bull;
    const queueName = `sweep-${sweep.name}`;
    const queue = new Queue(queueName, { connection, prefix });
    this.#queues.push(queue);
    queue.on("error", (error) => logger.warn("sweep queue connection trouble", { sweep: sweep.name, error }));
    await queue.setGlobalConcurrency(1);
    await queue.upsertJobScheduler(
      sweep.name,
      { every: sweep.everyMs },
      { name: sweep.name, opts: { removeOnComplete: true, removeOnFail: true } },
    );
    const worker = new Worker(
      queueName,
      async (job) => {
        const began = Date.now();
        const did = await sweep.round();
        logger.debug("sweep round done", {
          sweep: sweep.name,
          round: job.id,
          ms: Date.now() - began,
          ...did,
        });
        return did;
      },
      { connection, prefix, concurrency: 1, ...jobLockOptions(jobLockMs) },
    );
    this.#workers.push(worker);
    worker.on("error", (error) => logger.warn("sweep worker error", { sweep: sweep.name, error }));
    worker.on("failed", (job, error) =>
      logger.warn("a sweep round failed; the next round tries again", {
        sweep: sweep.name,
        round: job?.id,
        error,
      }),
    );
  }
}
