/**
 * Scale-out on BullMQ (roles ingress and worker). Loaded only for those roles: a process with
 * role `all` never loads BullMQ or connects to Redis for it.
 */
import { hostname } from "node:os";
import type { Logger } from "@switchboard/core";
import type { Adapter } from "@switchboard/core/adapter";
import type { Role } from "../config/schema.ts";
import { bullConnectionFor } from "./bullmq-connection.ts";
import { ClusterSweeps } from "./cluster-sweeps.ts";
import { DrainQueue } from "./drain-queue.ts";
import { type DrainObserver, type DrainTarget, DrainWorker } from "./drain-worker.ts";
import { LeaderCallServer, LeaderCalls } from "./leader-calls.ts";
import { LeaderLease } from "./leader-lease.ts";
import { leaderOnly } from "./leader-only-adapter.ts";
import { Leadership } from "./leadership.ts";
import { closeLeaseConnection, type LeaseRedis, openLeaseConnection } from "./lease-connection.ts";
import { clusterSweepsOf, type ProcessSweepers } from "./sweep-rounds.ts";
import { TaskStepQueue, type TaskStepTarget, TaskStepWorker } from "./task-steps.ts";

export { bullConnectionFor } from "./bullmq-connection.ts";
export { DrainQueue, type DrainQueueCounts } from "./drain-queue.ts";
export type { DrainObserver } from "./drain-worker.ts";
export { LeaderCallError } from "./leader-calls.ts";
export { SendOnlyUnsupportedError, sendOnly } from "./send-only-adapter.ts";
export type { ProcessSweepers } from "./sweep-rounds.ts";

export interface ScaleOutOptions {
  readonly role: Exclude<Role, "all">;
  readonly storeUrl: string;
  readonly cwd: string;
  readonly logger: Logger;
  readonly concurrency: number;
  readonly jobLockMs: number;
  readonly lockTtlMs: number;
  readonly sweepEveryMs: number;
  readonly leaderLeaseMs: number;
  /** Task steps one worker runs at once (`tasks.maxConcurrent`). */
  readonly taskConcurrency: number;
}

/** One process's part of the cluster: the queue it announces work to, and (workers) what drains it. */
export interface ScaleOut {
  readonly queue: DrainQueue;
  /** Where background tasks' steps are announced (every process: a task started or resumed anywhere). */
  readonly taskSteps: TaskStepQueue;
  /** Where BullMQ lives (host only), for the start-up lines. */
  readonly description: string;
  /**
   * Ingress: the adapter as this process runs it. One whose inbound connection the platform allows
   * once per bot receives only while this ingress leads it (elected on Redis); others unchanged.
   * `answerCalls`: what the leader answers other processes' calls with (`callLeader`), while it leads.
   */
  receiving(adapter: Adapter, answerCalls?: (request: unknown) => Promise<unknown>): Adapter;
  /**
   * Asks the process that leads `platform`'s inbound connection (Matrix: encrypt with the bot's one
   * device); rejects with LeaderCallError when none answers in time.
   */
  callLeader(platform: string, request: unknown): Promise<unknown>;
  /** Which singletons this ingress leads now (metrics, health). */
  leading(): { platform: string; leading: boolean }[];
  /**
   * Workers: starts draining conversations and taking the rounds of the cluster's sweeps (recovery,
   * `sweepers`), which no process runs on a timer of its own. Ingress: nothing to start.
   */
  startWorking(
    engine: DrainTarget,
    sweepers: ProcessSweepers & { tasks: TaskStepTarget },
    observer?: DrainObserver,
  ): Promise<void>;
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
  const taskSteps = new TaskStepQueue(bull, (error) =>
    options.logger.warn("BullMQ connection trouble (task steps); retrying", { error }),
  );
  let worker: DrainWorker | undefined;
  let stepWorker: TaskStepWorker | undefined;
  let sweeps: ClusterSweeps | undefined;
  // Leases get their own connection, opened on the first adapter that needs one.
  let leases: LeaseRedis | undefined;
  const holder = `${hostname()}:${process.pid}`;
  const leaderships = new Map<string, Leadership>();
  const leaderCalls = new LeaderCalls(bull, (error) =>
    options.logger.warn("BullMQ connection trouble (leader calls); retrying", { error }),
  );
  return {
    queue,
    taskSteps,
    description: `BullMQ on ${bull.host} (prefix ${bull.prefix})`,
    callLeader: (platform, request) => leaderCalls.call(platform, request),
    receiving(adapter, answerCalls) {
      if (!adapter.exclusiveInbound) return adapter;
      leases ??= openLeaseConnection(bull.url, {
        name: "switchboard-leases",
        commandTimeoutMs: Math.max(50, Math.floor(options.leaderLeaseMs / 3)),
        onError: (error) => options.logger.warn("leader lease connection trouble; retrying", { error }),
      });
      const lease = new LeaderLease(leases, `${bull.keyPrefix}leader:${adapter.platform}`, holder);
      const name = `${adapter.platform} receiving`;
      const leadership = new Leadership({
        lease,
        name,
        ttlMs: options.leaderLeaseMs,
        logger: options.logger,
      });
      leaderships.set(adapter.platform, leadership);
      const { platform } = adapter;
      const logger = options.logger;
      return leaderOnly(
        adapter,
        leadership,
        answerCalls && (() => new LeaderCallServer({ bull, platform, answer: answerCalls, logger })),
      );
    },
    leading: () =>
      [...leaderships].map(([platform, leadership]) => ({ platform, leading: leadership.holds() })),
    async startWorking(engine, sweepers, observer) {
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
      stepWorker = new TaskStepWorker({
        bull,
        tasks: sweepers.tasks,
        queue: taskSteps,
        concurrency: options.taskConcurrency,
        jobLockMs: options.jobLockMs,
        leaseTtlMs: options.lockTtlMs,
        logger: options.logger,
      });
      stepWorker.start();
      sweeps = new ClusterSweeps({
        bull,
        sweeps: clusterSweepsOf(engine, sweepers, options.sweepEveryMs),
        jobLockMs: options.jobLockMs,
        logger: options.logger,
      });
      await sweeps.start();
    },
    async stopWorking() {
      await Promise.all([worker?.close(), stepWorker?.close(), sweeps?.close()]);
      worker = undefined;
      stepWorker = undefined;
      sweeps = undefined;
    },
    async close() {
      await leaderCalls.close();
      await queue.close();
      await taskSteps.close();
      if (leases) closeLeaseConnection(leases);
    },
  };
}
