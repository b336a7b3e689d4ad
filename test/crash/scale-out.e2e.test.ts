/**
 * A scaled-out cluster on one Redis: one ingress holds Slack and takes every message, two workers
 * run the turns (BullMQ carries "drain this conversation" between them) and answer through the Web
 * API. 100 threads × 10 messages, the threads at once: every message answered exactly once, each
 * thread's answers in question order, turns on both workers and threads moving between them with
 * their specialist kept. Then the same with one worker SIGKILLed mid-run: the other finishes
 * everything. And a worker stopped with SIGTERM hands its running drains back at once (no
 * stalled-job wait).
 */
import { waitFor } from "@switchboard/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { answerReport, postsFor } from "../support/crash/answers.ts";
import { CrashWorld } from "../support/crash/crash-world.ts";
import {
  answerWith,
  shortAnswer,
  shortParts,
  tokenOf as tokenIn,
} from "../support/crash/scripted-answers.ts";
import { describeReport, exactlyOnce, settleAnswers } from "../support/crash/settle.ts";
import type { Origin } from "../support/crash/slack-traffic.ts";
import type { ChatRequest, StubReply } from "../support/model/chat-request.ts";

const THREADS = 100;
const MESSAGES = 10;
const LOCK_TTL_SECONDS = 3;
const INGRESS = 0;
const WORKERS = [1, 2] as const;

let world: CrashWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const tokenOf = (thread: number, message: number) =>
  `t${String(thread).padStart(3, "0")}m${String(message).padStart(2, "0")}`;

/** The supervisor hands every conversation to billing, which stays (sticky) and answers. */
const STICKY_TEAM = {
  supervisor: { prompt: "Hand every question to billing.", tools: [] },
  specialists: [{ name: "billing", description: "answers billing questions", prompt: "Answer it." }],
};

function stickyScript(latencyMs: number) {
  return (request: ChatRequest): StubReply =>
    request.toolNames.includes("transfer_to_billing")
      ? { kind: "answer", toolCalls: [{ name: "transfer_to_billing", args: {} }], latencyMs }
      : { kind: "answer", text: shortAnswer(tokenIn(request)), latencyMs };
}

async function startCluster(
  latencyMs: number,
  options: { sticky?: boolean; concurrency?: number } = {},
): Promise<CrashWorld> {
  const started = await CrashWorld.start({
    store: "redis",
    slots: 3,
    lockTtlSeconds: LOCK_TTL_SECONDS,
    script: options.sticky ? stickyScript(latencyMs) : answerWith(shortAnswer, { latencyMs }),
    config: {
      extra: {
        // Under this load (one CPU-bound worker after the kill) a conversation may wait minutes for
        // its turn: the "still working" notice would be a correct extra post, not what is tested.
        requests: { noticeAfterSeconds: 3_600, timeoutSeconds: 7_200 },
        ...(options.sticky ? { team: STICKY_TEAM } : {}),
        ...(options.concurrency ? { scaleOut: { concurrency: options.concurrency } } : {}),
      },
    },
  });
  world = started;
  await started.startCli(INGRESS, { role: "ingress" });
  for (const worker of WORKERS) await started.startCli(worker, { role: "worker" });
  return started;
}

/**
 * Every thread written by one person, message after message: the next once Slack's event was
 * acked (they queue behind the running turn, and one drain answers them in order), and from
 * message `waitFromMessage` on, the next once the previous answer is in the thread (each its own
 * drain, run by whichever worker has room).
 */
async function writeThreads(cluster: CrashWorld, waitFromMessage = MESSAGES): Promise<Origin[][]> {
  const threads: Origin[][] = Array.from({ length: THREADS }, () => []);
  await Promise.all(
    threads.map(async (thread, index) => {
      for (let message = 0; message < MESSAGES; message++) {
        const previous = thread.at(-1);
        if (previous && message >= waitFromMessage) {
          await waitFor(
            `the answer to ${previous.token}`,
            () => postsFor(cluster.slack.state, previous).length > 0,
            settleOptions.deadlineMs,
          );
        }
        const origin = cluster.traffic.mention(tokenOf(index, message), thread[0]?.threadTs);
        thread.push(origin);
        await cluster.traffic.deliverUntilAcked(cluster.transport(INGRESS), origin);
      }
    }),
  );
  return threads;
}

/** Which worker's model each thread's turns called (the thread's token prefix → worker slots). */
function recordWorkers(cluster: CrashWorld): Map<string, Set<number>> {
  const byThread = new Map<string, Set<number>>();
  for (const worker of WORKERS) {
    const stub = cluster.stub(worker);
    const script = stub.script;
    stub.script = (request) => {
      const thread = tokenIn(request).slice(0, 4);
      byThread.set(thread, (byThread.get(thread) ?? new Set()).add(worker));
      return script(request);
    };
  }
  return byThread;
}

/** What explains a lost answer: each process's warnings and errors, and its last lines. */
function failureLogs(cluster: CrashWorld): string {
  return `${cluster.logsAbout(['"level":"warn"', '"level":"error"', "unavailable", "circuit"])}\n${cluster.logs()}`;
}

function threadsOutOfOrder(cluster: CrashWorld, threads: Origin[][]): string[] {
  return threads
    .filter((thread) => {
      const answeredAt = thread.map((origin) => postsFor(cluster.slack.state, origin)[0]?.ts ?? "");
      return answeredAt.some((ts, index) => index > 0 && Number(ts) < Number(answeredAt[index - 1]));
    })
    .map((thread) => thread[0]?.token ?? "?");
}

// A worker is CPU-bound on this 2-core machine (shared with the stand-ins and other test files):
// alone it answers about ten turns a second. A slow run may go on while answers keep coming; a
// lost answer stops the progress and ends the wait after `stallMs`.
const settleOptions = { deadlineMs: 600_000, stallMs: 60_000, quietMs: 2_000 };

describe("scale-out: one ingress, two workers, BullMQ on Redis", () => {
  it("answers 1,000 messages over 100 threads exactly once, in order, on both workers, sticky specialist kept", {
    timeout: 900_000,
  }, async () => {
    // A worker takes every drain it has room for, and BullMQ does not balance workers: with room
    // for thousands, the worker that asks first takes nearly everything (seen in a full run: 11 /
    // 1,089 model calls). With room for 25 each and 100 threads, both are full while the threads
    // are written, and each takes the next drain when one of its own ends.
    const cluster = await startCluster(20, { sticky: true, concurrency: 25 });
    const workersOf = recordWorkers(cluster);
    const threads = await writeThreads(cluster, MESSAGES / 2);
    const origins = threads.flat();
    const report = await settleAnswers(cluster.slack.state, origins, shortParts, settleOptions);
    expect(describeReport(report, origins.length), cluster.logs()).toBe(exactlyOnce(origins.length));
    expect(threadsOutOfOrder(cluster, threads), "threads answered out of question order").toEqual([]);

    // The ingress runs no turn; both workers do. Each thread's first question costs two model calls
    // (the supervisor hands off, billing answers); every follow-up one, on whichever worker runs it:
    // billing stays the active agent across workers. What is exactly once is the answer: beside
    // other test files a model call is now and then made twice (a retried attempt, or a turn taken
    // over after a worker's hold lapsed; seen: one in 1,100); a specialist lost across workers
    // would cost a hundred more (every follow-up through the supervisor again).
    expect(cluster.stub(INGRESS).received.value).toBe(0);
    const calls = WORKERS.map((worker) => cluster.stub(worker).received.value);
    const total = calls[0]! + calls[1]!;
    expect(total, `model calls per worker: ${calls.join(" / ")}`).toBeGreaterThanOrEqual(
      origins.length + THREADS,
    );
    expect(total, `model calls per worker: ${calls.join(" / ")}`).toBeLessThanOrEqual(
      origins.length + THREADS + 10,
    );
    expect(Math.min(...calls), `model calls per worker: ${calls.join(" / ")}`).toBeGreaterThan(100);
    // The second half of each thread is one drain per message: threads move between the workers,
    // and the call count above shows billing kept them on every move.
    const moved = [...workersOf.values()].filter((workers) => workers.size === WORKERS.length).length;
    expect(moved, "threads whose turns ran on both workers").toBeGreaterThan(THREADS / 4);
  });

  it("finishes everything exactly once and in order when a worker is SIGKILLed mid-run", {
    timeout: 900_000,
  }, async () => {
    // Slow enough that the victim has turns in flight when it dies.
    const cluster = await startCluster(150);
    const [survivor, victim] = WORKERS;
    const writing = writeThreads(cluster);
    await waitFor(
      "the victim to have answered some and to have model calls in flight",
      () => cluster.stub(victim).received.value >= 100 && cluster.stub(victim).inFlight.value > 0,
      120_000,
    );
    await cluster.cli(victim)?.kill();
    const answeredByVictim = cluster.stub(victim).received.value;
    const threads = await writing;
    const origins = threads.flat();

    const report = await settleAnswers(cluster.slack.state, origins, shortParts, settleOptions);
    expect(describeReport(report, origins.length), failureLogs(cluster)).toBe(exactlyOnce(origins.length));
    expect(threadsOutOfOrder(cluster, threads), "threads answered out of question order").toEqual([]);
    // The survivor took over the rest, the dead worker's conversations included.
    expect(cluster.stub(survivor).received.value).toBeGreaterThanOrEqual(origins.length - answeredByVictim);
    expect(answerReport(cluster.slack.state, origins, shortParts).complete).toBe(origins.length);
  });

  it("a worker stopped with SIGTERM mid-run hands its drains back: the other answers them, once and in order", {
    timeout: 300_000,
  }, async () => {
    // Slow answers: the victim surely has turns running when it is asked to stop.
    const cluster = await startCluster(2_000);
    const [survivor, victim] = WORKERS;
    const threads: Origin[][] = Array.from({ length: 10 }, () => []);
    const writing = Promise.all(
      threads.map(async (thread, index) => {
        for (let message = 0; message < 3; message++) {
          const origin = cluster.traffic.mention(tokenOf(index, message), thread[0]?.threadTs);
          thread.push(origin);
          await cluster.traffic.deliverUntilAcked(cluster.transport(INGRESS), origin);
        }
      }),
    );
    await waitFor("the victim to have turns running", () => cluster.stub(victim).inFlight.value >= 2, 60_000);
    const exit = await cluster.cli(victim)?.terminate();
    // A clean stop: exit code 0, its running turns cancelled (their model requests closed unanswered).
    expect(exit, cluster.logs()).toEqual({ code: 0, signal: null });
    expect(cluster.stub(victim).abandoned.value).toBeGreaterThanOrEqual(1);
    await writing;
    const origins = threads.flat();
    const report = await settleAnswers(cluster.slack.state, origins, shortParts, settleOptions);
    expect(describeReport(report, origins.length), cluster.logs()).toBe(exactlyOnce(origins.length));
    expect(threadsOutOfOrder(cluster, threads), "threads answered out of question order").toEqual([]);
    // Handed back, not found stalled: the survivor never had to wait for a dead worker's job lock.
    expect(cluster.cli(survivor)?.stderr).not.toContain("a drain stalled");
  });
});
