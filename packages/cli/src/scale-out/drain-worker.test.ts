/**
 * The drain jobs on real BullMQ and Redis, with a stand-in for the engine: one job per waiting
 * conversation, a locked conversation tried again later (never dropped), and work that arrives
 * while a drain ends announced again once the job is gone.
 */

import type { RecoveryReport, ScheduledDrainOutcome } from "@switchboard/core/host";
import { createMemoryLogger, waitFor } from "@switchboard/core/testing";
import { Worker } from "bullmq";
import { afterEach, beforeEach, expect, it } from "vitest";
import {
  describeWithRedis,
  removeRedisKeys,
  TEST_REDIS_URL,
  uniqueRedisPrefix,
} from "../../../core/src/store/test-backends.ts";
import { bullConnectionFor } from "./bullmq-connection.ts";
import { DRAIN_QUEUE } from "./drain-jobs.ts";
import { DrainQueue } from "./drain-queue.ts";
import { type DrainTarget, DrainWorker } from "./drain-worker.ts";
import { jobLockOptions, jobTakeoverBoundMs } from "./takeover.ts";

/** The engine as the worker sees it: per-conversation item counts, a lock that can be held elsewhere. */
class EngineStandIn implements DrainTarget {
  readonly queued = new Map<string, number>();
  readonly drained: string[] = [];
  readonly lockedUntil = new Map<string, number>();
  /** Drains that throw (a worker shutting down cancels its turns) before they succeed. */
  failNext = 0;
  /** Runs inside the next drain of a conversation, as it ends. */
  duringDrain: ((key: string) => Promise<void>) | undefined;

  async drainScheduled(key: string): Promise<ScheduledDrainOutcome> {
    if ((this.lockedUntil.get(key) ?? 0) > Date.now()) return "locked-elsewhere";
    if (this.failNext > 0) {
      this.failNext -= 1;
      throw new Error("the turn was cancelled: shutting down");
    }
    this.queued.set(key, 0);
    this.drained.push(key);
    const hook = this.duringDrain;
    this.duringDrain = undefined;
    await hook?.(key);
    return "drained";
  }

  async queuedWork(key: string): Promise<number> {
    return this.queued.get(key) ?? 0;
  }

  async runRecoveryRound(): Promise<RecoveryReport> {
    return { at: Date.now(), queuedConversations: 0, oldestQueueAgeMs: 0, picked: 0 };
  }
}

const KEY = "slack:T1:C2:1700000000.000100";

describeWithRedis("drain jobs on BullMQ", () => {
  let prefix: string;
  let queue: DrainQueue;
  let worker: DrainWorker | undefined;
  let engine: EngineStandIn;
  const logger = createMemoryLogger();

  beforeEach(async () => {
    prefix = uniqueRedisPrefix("drain-jobs");
    queue = new DrainQueue(bullConnectionFor(`${TEST_REDIS_URL}/?prefix=${prefix}`, "/"), () => undefined);
    await queue.ready();
    engine = new EngineStandIn();
  });
  afterEach(async () => {
    await worker?.close();
    worker = undefined;
    await queue.close();
    await removeRedisKeys(prefix);
  });

  const startWorker = (lockTtlMs = 300, stalled?: () => void) => {
    worker = new DrainWorker({
      ...(stalled ? { observer: { started: () => undefined, finished: () => undefined, stalled } } : {}),
      bull: bullConnectionFor(`${TEST_REDIS_URL}/?prefix=${prefix}`, "/"),
      engine,
      queue,
      concurrency: 4,
      jobLockMs: 2_000,
      lockTtlMs,
      logger,
    });
    worker.start();
  };

  it("keeps one job per waiting conversation however often it is announced", async () => {
    for (let i = 0; i < 5; i++) await queue.schedule(KEY);
    await queue.schedule("slack:T1:C2:other");
    expect((await queue.counts()).waiting).toBe(2);
    startWorker();
    await waitFor("both conversations drained", () => engine.drained.length === 2 || undefined);
    expect(engine.drained.sort()).toEqual([KEY, "slack:T1:C2:other"].sort());
  });

  it("tries a conversation locked by another holder again later instead of dropping it", async () => {
    engine.lockedUntil.set(KEY, Date.now() + 600);
    startWorker(300);
    await queue.schedule(KEY);
    await waitFor("the drain after the lock is free", () => engine.drained.length === 1 || undefined, 10_000);
    expect(Date.now()).toBeGreaterThanOrEqual(engine.lockedUntil.get(KEY)!);
  });

  it("announces work that arrived while a drain ended, once its job is gone", async () => {
    engine.duringDrain = async (key) => {
      // A message queued after the drain's last look: its announcement finds the job still there.
      engine.queued.set(key, 1);
      await queue.schedule(key);
    };
    startWorker();
    await queue.schedule(KEY);
    await waitFor("a second drain", () => engine.drained.length === 2 || undefined, 10_000);
    expect(engine.drained).toEqual([KEY, KEY]);
  });

  it("gives a drain that failed (its worker shutting down) back to the queue, and it runs again", async () => {
    engine.failNext = 1;
    startWorker();
    await queue.schedule(KEY);
    await waitFor("the drain after the failed one", () => engine.drained.length === 1 || undefined, 10_000);
    expect(engine.failNext).toBe(0);
    expect(logger.lines.some((line) => line.message.startsWith("drain failed"))).toBe(true);
  });

  it("gives a dead worker's drain to a live one within the job lock (scaleOut.jobLockSeconds)", async () => {
    const bull = bullConnectionFor(`${TEST_REDIS_URL}/?prefix=${prefix}`, "/");
    // The worker that dies, configured as ours are. Its lock is taken as the job starts: killed
    // then, it holds the job longest (a whole lock period; BullMQ's defaults then took 2 of them).
    let took: () => void = () => undefined;
    const tookJob = new Promise<void>((resolve) => {
      took = resolve;
    });
    const doomed = new Worker(
      DRAIN_QUEUE,
      () => {
        took();
        return new Promise<void>(() => undefined);
      },
      { connection: bull.connection, prefix: bull.prefix, ...jobLockOptions(2_000) },
    );
    await queue.schedule(KEY);
    await tookJob;
    let stalledAt = 0;
    startWorker(300, () => {
      stalledAt = Date.now();
    });
    // Killed: no more lock renewals, nothing handed back (a forced close leaves the job active).
    const killedAt = Date.now();
    await doomed.close(true);
    await waitFor("the drain on the live worker", () => engine.drained.length === 1 || undefined, 10_000);
    expect(stalledAt).toBeGreaterThan(0);
    expect(stalledAt - killedAt).toBeLessThanOrEqual(jobTakeoverBoundMs(2_000));
  });
});
