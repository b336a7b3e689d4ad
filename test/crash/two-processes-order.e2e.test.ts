/**
 * Two processes on one Redis, 100 threads × 10 messages, consecutive messages of a thread sent to
 * alternating processes (as a load balancer in front of both would). Every thread's answers must come
 * in question order — by Slack's order of the messages, not by which process queued first — each
 * exactly once, and the turns must be spread: neither process does more than 65 % of them.
 */
import { afterEach, describe, expect, it } from "vitest";
import { postsFor } from "../support/crash/answers.ts";
import { CrashWorld } from "../support/crash/crash-world.ts";
import { answerWith, shortAnswer, shortParts } from "../support/crash/scripted-answers.ts";
import { describeReport, exactlyOnce, settleAnswers } from "../support/crash/settle.ts";
import type { Origin } from "../support/crash/slack-traffic.ts";

// 1,000 turns: two CLI processes on a 2-core machine, shared with the Slack and model stand-ins,
// answer them in about a minute (longer in CI, beside other test files).
const THREADS = 100;
const MESSAGES = 10;
const LOCK_TTL_SECONDS = 3;

let world: CrashWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const tokenOf = (thread: number, message: number) =>
  `t${String(thread).padStart(3, "0")}m${String(message).padStart(2, "0")}`;

describe("two processes on Redis, threads written to both", () => {
  it("keeps every thread's answers in question order and spreads the turns", {
    timeout: 420_000,
  }, async () => {
    world = await CrashWorld.start({
      store: "redis",
      slots: 2,
      lockTtlSeconds: LOCK_TTL_SECONDS,
      script: answerWith(shortAnswer, { latencyMs: 20 }),
    });
    await world.startCli(0);
    await world.startCli(1);
    // Each thread is written by one person, message after message (the next once Slack acked the
    // last); the hundred threads at the same time.
    const threads: Origin[][] = Array.from({ length: THREADS }, () => []);
    await Promise.all(
      threads.map(async (thread, index) => {
        for (let message = 0; message < MESSAGES; message++) {
          const origin = world!.traffic.mention(tokenOf(index, message), thread[0]?.threadTs);
          thread.push(origin);
          await world!.traffic.deliverUntilAcked(world!.transport((index + message) % 2), origin);
        }
      }),
    );
    const origins = threads.flat();
    const report = await settleAnswers(world.slack.state, origins, shortParts, {
      // The figure under test is order, not speed: a slow run may go on while answers keep coming;
      // a lost answer stops the progress and ends the wait after `stallMs`.
      deadlineMs: 300_000,
      stallMs: 30_000,
      quietMs: 1_000,
    });
    expect(describeReport(report, origins.length), world.logs()).toBe(exactlyOnce(origins.length));

    const outOfOrder = threads.filter((thread) => {
      const answeredAt = thread.map((origin) => postsFor(world!.slack.state, origin)[0]?.ts ?? "");
      return answeredAt.some((ts, index) => index > 0 && Number(ts) < Number(answeredAt[index - 1]));
    });
    expect(
      outOfOrder.map((thread) => thread[0]?.token),
      "threads answered out of question order",
    ).toEqual([]);

    const turns = [world.stub(0).received.value, world.stub(1).received.value];
    const busiest = Math.max(...turns) / (turns[0]! + turns[1]!);
    expect(busiest, `turns per process: ${turns.join(" / ")}`).toBeLessThanOrEqual(0.65);
  });
});
