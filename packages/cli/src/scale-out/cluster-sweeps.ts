import type { Logger } from "@switchboard/core";
import { Queue, Worker } from "bullmq";
import type { BullConnection } from "./bullmq-connection.ts";
import type { DrainTarget } from "./drain-worker.ts";

const SWEEP_QUEUE = "sweeps";
const RECOVERY_SWEEP = "recovery";

/**
 * Sweepers that must run once per cluster, not once per process: BullMQ job schedulers hand each
 * round to one worker. The recovery round announces queued work nobody announced (an ingress died
 * between intake and announcing, a drain gave up) and reports queue ages.
 */
export class ClusterSweeps {
  readonly #bull: BullConnection;
  readonly #engine: DrainTarget;
  readonly #logger: Logger;
  readonly #everyMs: number;
  #queue: Queue | undefined;
  #worker: Worker | undefined;

  constructor(options: { bull: BullConnection; engine: DrainTarget; logger: Logger; everyMs: number }) {
    this.#bull = options.bull;
    this.#engine = options.engine;
    this.#logger = options.logger;
    this.#everyMs = options.everyMs;
  }

  async start(): Promise<void> {
    const { connection, prefix } = this.#bull;
    this.#queue = new Queue(SWEEP_QUEUE, { connection, prefix });
    this.#queue.on("error", (error) => this.#logger.warn("sweep queue connection trouble", { error }));
    // Upserted by every worker: the same id, so one schedule exists however many workers start.
    await this.#queue.upsertJobScheduler(
      RECOVERY_SWEEP,
      { every: this.#everyMs },
      { name: RECOVERY_SWEEP, opts: { removeOnComplete: true, removeOnFail: true } },
    );
    this.#worker = new Worker(
      SWEEP_QUEUE,
      async () => {
        const report = await this.#engine.runRecoveryRound();
        return { queued: report.queuedConversations, picked: report.picked };
      },
      { connection, prefix, concurrency: 1 },
    );
    this.#worker.on("error", (error) => this.#logger.warn("sweep worker error", { error }));
    this.#worker.on("failed", (_job, error) => this.#logger.warn("a sweep round failed", { error }));
  }

  async close(): Promise<void> {
    await this.#worker?.close();
    await this.#queue?.close();
  }
}
