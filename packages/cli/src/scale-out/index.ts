/**
 * Scale-out on BullMQ (roles ingress and worker). Loaded only for those roles: a process with
 * role `all` never loads BullMQ or connects to Redis for it.
 */
import type { Logger } from "@switchboard/core";
import type { Role } from "../config/schema.ts";
import { bullConnectionFor } from "./bullmq-connection.ts";
import { ClusterSweeps } from "./cluster-sweeps.ts";
import { DrainQueue } from "./drain-queue.ts";
import { type DrainObserver, type DrainTarget, DrainWorker } from "./drain-worker.ts";

export { bullConnectionFor } from "./bullmq-connection.ts";
export { DrainQueue, type DrainQueueCounts } from "./drain-queue.ts";
export type { DrainObserver } from "./drain-worker.ts";
export { SendOnlyUnsupportedError, sendOnly } from "./send-only-adapter.ts";

export interface ScaleOutOptions {
  readonly role: Exclude<Role, "all">;
  readonly storeUrl: string;
  readonly cwd: string;
  readonly logger: Logger;
  readonly concurrency: number;
  readonly jobLockMs: number;
  readonly lockTtlMs: number;
  readonly sweepEveryMs: number;
}

/** One process's part of the cluster: the queue it announces work to, and (workers) what drains it. */
export interface ScaleOut {
  readonly queue: DrainQueue;
  /** Where BullMQ lives (host only), for the start-up lines. */
  readonly description: string;
  /** Workers: starts draining conversations and taking sweep rounds. Ingress: nothing to start. */
  startWorking(engine: DrainTarget, observer?: DrainObserver): Promise<void>;
  /** Stops taking jobs; resolves when running drains ended (their turns are cancelled by the engine). */
  stopWorking(): Promise<void>;
  close(): Promise<void>;
}

export async function openScaleOut(options: ScaleOutOptions): Promise<ScaleOut> {
  const bull = bullConnectionFor(options.storeUrl, options.cwd);
  const queue = new DrainQueue(bull, (error) =>
    options.logger.warn("BullMQ connection trouble; retrying", { error }),
  );
  try {
    await queue.ready();
  } catch (error) {
    await queue.close();
    throw new Error(`BullMQ cannot reach Redis at ${bull.host}`, { cause: error });
  }
  let worker: DrainWorker | undefined;
  let sweeps: ClusterSweeps | undefined;
  return {
    queue,
    description: `BullMQ on ${bull.host} (prefix ${bull.prefix})`,
    async startWorking(engine, observer) {
      if (options.role !== "worker") return;
      worker = new DrainWorker({
        bull,
        engine,
        queue,
        concurrency: options.concurrency,
        jobLockMs: options.jobLockMs,
        lockTtlMs: options.lockTtlMs,
        logger: options.logger,
        ...(observer ? { observer } : {}),
      });
      worker.start();
      sweeps = new ClusterSweeps({ bull, engine, logger: options.logger, everyMs: options.sweepEveryMs });
      await sweeps.start();
    },
    async stopWorking() {
      await Promise.all([worker?.close(), sweeps?.close()]);
      worker = undefined;
      sweeps = undefined;
    },
    close: () => queue.close(),
  };
}
