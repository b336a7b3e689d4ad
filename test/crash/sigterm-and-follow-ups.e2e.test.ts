/**
 * Two ways work got lost without any crash: SIGTERM while Slack is delivering (every event the
 * process acknowledged must be answered — after a restart if need be — and every event it did not
 * is Slack's to retry), and a follow-up typed while the first answer is still being written (the
 * mention addressed the thread at intake, so the follow-up queues behind the first answer).
 */
import { afterEach, describe, expect, it } from "vitest";
import { CrashWorld } from "../support/crash/crash-world.ts";
import { answerWith, shortAnswer, shortParts, tokens } from "../support/crash/scripted-answers.ts";
import { describeReport, exactlyOnce, pause, settleAnswers } from "../support/crash/settle.ts";
import type { Origin } from "../support/crash/slack-traffic.ts";

const LOCK_TTL_SECONDS = 3;

let world: CrashWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe("no crash, still nothing lost", () => {
  it("SIGTERM while Slack delivers 50 mentions: all 50 answered exactly once after the restart", {
    timeout: 120_000,
  }, async () => {
    world = await CrashWorld.start({
      store: "sqlite",
      lockTtlSeconds: LOCK_TTL_SECONDS,
      script: answerWith(shortAnswer, { latencyMs: 300 }),
    });
    const cli = await world.startCli();
    const origins = tokens("q", 50).map((token) => world!.traffic.mention(token));
    const delivering = world.traffic.deliverAll(world.transport(), origins, { parallel: 5 });
    await world.stub().received.atLeast(5);
    const exit = await cli.terminate();
    expect(exit.code, cli.stderr).toBe(0);
    const { refused } = await delivering;

    await world.startCli();
    // Slack retries what was not acknowledged with a 2xx; what was acknowledged is ours to answer.
    await world.traffic.deliverAll(world.transport(), refused, { retryNum: 1 });
    const report = await settleAnswers(world.slack.state, origins, shortParts, {
      deadlineMs: (LOCK_TTL_SECONDS + 8) * 1000,
      quietMs: (LOCK_TTL_SECONDS + 1) * 1000,
    });
    expect(describeReport(report, origins.length), world.logs()).toBe(exactlyOnce(origins.length));
  });

  it("a follow-up typed while the first answer is being written is answered too (20 threads)", {
    timeout: 120_000,
  }, async () => {
    world = await CrashWorld.start({
      store: "sqlite",
      lockTtlSeconds: LOCK_TTL_SECONDS,
      script: answerWith(shortAnswer, { latencyMs: 1_500 }),
    });
    await world.startCli();
    const firsts = tokens("q", 20).map((token) => world!.traffic.mention(token));
    await world.traffic.deliverAll(world.transport(), firsts);
    await pause(300);
    const followUps: Origin[] = firsts.map((first, index) =>
      world!.traffic.reply(`t${String(index).padStart(3, "0")}`, first.threadTs),
    );
    await world.traffic.deliverAll(world.transport(), followUps);
    const origins = [...firsts, ...followUps];
    const report = await settleAnswers(world.slack.state, origins, shortParts, {
      deadlineMs: 20_000,
      quietMs: 1_000,
    });
    expect(describeReport(report, origins.length), world.logs()).toBe(exactlyOnce(origins.length));
  });
});
