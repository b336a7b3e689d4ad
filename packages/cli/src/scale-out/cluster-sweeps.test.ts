/**
 * Cluster sweeps on real BullMQ and Redis, two "workers" each running ClusterSweeps: one schedule
 * per sweep however many workers upsert it, each round taken by one worker, and a round slower
 * than its interval never overlapped by a second copy in the other worker.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { createMemoryLogger, waitFor } from "@switchboard/core/testing";
import { Queue, Worker } from "bullmq";
import { afterEach, beforeEach, expect, it } from "vitest";
import {
  describeWithRedis,
  removeRedisKeys,
  TEST_REDIS_URL,
  uniqueRedisPrefix,
} from "../../../core/src/store/test-backends.ts";
import { bullConnectionFor } from "./bullmq-connection.ts";
import { type ClusterSweep, ClusterSweeps } from "./cluster-sweeps.ts";

interface Round {
  readonly sweep: string;
  readonly worker: number;
  readonly began: number;
  ended?: number;
}

describeWithRedis("cluster sweeps on BullMQ", () => {
  let prefix: string;
  let workers: ClusterSweeps[];
  let rounds: Round[];

  beforeEach(() => {
    prefix = uniqueRedisPrefix("cluster-sweeps");
    workers = [];
    rounds = [];
  });
  afterEach(async () => {
    await Promise.all(workers.map((worker) => worker.close()));
    await removeRedisKeys(prefix);
  });

  const bull = () => bullConnectionFor(`${TEST_REDIS_URL}/?prefix=${prefix}`, "/");

  /** A sweep whose rounds take `roundMs`, recording which worker ran each and when. */
  const timedSweep = (name: string, everyMs: number, roundMs: number, worker: number): ClusterSweep => ({
    name,
    everyMs,
    round: async () => {
      const round: Round = { sweep: name, worker, began: Date.now() };
      rounds.push(round);
      await sleep(roundMs);
      round.ended = Date.now();
      return {};
    },
  });

  const startWorkers = async (sweepsOf: (worker: number) => ClusterSweep[]) => {
    for (const worker of [1, 2]) {
      const sweeps = new ClusterSweeps({
        bull: bull(),
        sweeps: sweepsOf(worker),
        jobLockMs: 5_000,
        logger: createMemoryLogger(),
      });
      workers.push(sweeps);
      await sweeps.start();
    }
  };

  it("never runs two rounds of one sweep at once, even rounds slower than their interval", async () => {
    // Rounds of 300 ms every 50 ms: BullMQ queues the next round as each one starts, so the other
    // worker would take it at once without the queue's concurrency limit.
    await startWorkers((worker) => [timedSweep("slow", 50, 300, worker)]);
    await waitFor("six finished rounds", () => rounds.filter((round) => round.ended).length >= 6, 15_000);
    const finished = rounds.filter((round) => round.ended !== undefined).sort((a, b) => a.began - b.began);
    for (const [index, round] of finished.entries()) {
      const next = finished[index + 1];
      if (next)
        expect(next.began, `round ${index + 1} overlaps the one before it`).toBeGreaterThanOrEqual(
          round.ended!,
        );
    }
    // Rounds run back to back (the interval is shorter than a round), not once per worker per interval.
    expect(rounds.length).toBeLessThanOrEqual(finished.length + 1);
  });

  it("keeps one schedule per sweep however many workers upsert it, and a slow sweep never delays another", async () => {
    await startWorkers((worker) => [
      timedSweep("slow", 100, 2_000, worker),
      timedSweep("quick", 100, 0, worker),
    ]);
    const queue = new Queue("sweep-quick", { connection: bull().connection, prefix: bull().prefix });
    try {
      const schedulers = await queue.getJobSchedulers();
      expect(schedulers.map((scheduler) => [scheduler.key, scheduler.every])).toEqual([["quick", 100]]);
    } finally {
      await queue.close();
    }
    await waitFor(
      "five quick rounds",
      () => rounds.filter((round) => round.sweep === "quick").length >= 5,
      5_000,
    );
    // All of them while the first slow round was still running.
    expect(rounds.filter((round) => round.sweep === "slow")).toHaveLength(1);
  });

  it("hands the sweep on when the worker running a round dies: another worker runs the next rounds", async () => {
    const jobLockMs = 1_000;
    // The worker that dies: it takes a round and never finishes it, then stops renewing its job lock.
    let taken: (() => void) | undefined;
    const roundTaken = new Promise<void>((resolve) => {
      taken = resolve;
    });
    const dying = new Worker(
      "sweep-steady",
      () => {
        taken?.();
        return new Promise<never>(() => undefined);
      },
      {
        connection: bull().connection,
        prefix: bull().prefix,
        lockDuration: jobLockMs,
        stalledInterval: jobLockMs,
      },
    );
    const survivor = new ClusterSweeps({
      bull: bull(),
      sweeps: [timedSweep("steady", 100, 0, 2)],
      jobLockMs,
      logger: createMemoryLogger(),
    });
    try {
      // The dying worker is the only one until it holds a round.
      const queue = new Queue("sweep-steady", { connection: bull().connection, prefix: bull().prefix });
      await queue.setGlobalConcurrency(1);
      await queue.upsertJobScheduler("steady", { every: 100 }, { name: "steady" });
      await queue.close();
      await roundTaken;
      await dying.close(true);
      const died = Date.now();
      workers.push(survivor);
      await survivor.start();
      await waitFor("three rounds in the surviving worker", () => rounds.length >= 3, 10_000);
      // Its job lock expired, and BullMQ's stalled-job check (which marks a job on one pass and moves
      // it on the next) handed the round on: within three lock times.
      expect(rounds[0]!.began - died).toBeLessThan(3 * jobLockMs + 1_000);
    } finally {
      await dying.close(true);
    }
  });
});
