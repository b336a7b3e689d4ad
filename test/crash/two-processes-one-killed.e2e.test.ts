/**
 * Two processes on one Redis (a private prefix), mentions spread over both, one SIGKILLed while its
 * turns are in flight. Slack's retries of what the dead one had taken reach the survivor. The
 * survivor must finish every conversation — the dead process's too — within one lock TTL + 5 s,
 * each exactly once.
 */
import { waitFor } from "@switchboard/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { answerReport } from "../support/crash/answers.ts";
import { CrashWorld } from "../support/crash/crash-world.ts";
import { shortAnswer, shortParts, tokenOf, tokens } from "../support/crash/scripted-answers.ts";
import { describeReport, exactlyOnce, settleAnswers } from "../support/crash/settle.ts";

const MENTIONS = 100;
const LOCK_TTL_SECONDS = 3;

let world: CrashWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe("two processes on Redis, one killed", () => {
  it("the survivor answers everything exactly once within lock TTL + 5 s", { timeout: 120_000 }, async () => {
    world = await CrashWorld.start({
      store: "redis",
      slots: 2,
      lockTtlSeconds: LOCK_TTL_SECONDS,
      // Slow enough, and staggered (0.3–1.2 s), that the victim has answered some while others are
      // still with the model when it dies: with one latency for all, a process that starts its turns
      // together also finishes them together, and the moment with both can be too short to see.
      script: (request) => ({
        kind: "answer",
        text: shortAnswer(tokenOf(request)),
        latencyMs: 300 + (request.index % 10) * 100,
      }),
    });
    await world.startCli(0);
    const victim = await world.startCli(1);
    const origins = tokens("q", MENTIONS).map((token) => world!.traffic.mention(token));
    const toSurvivor = origins.filter((_, index) => index % 2 === 0);
    const toVictim = origins.filter((_, index) => index % 2 === 1);
    await Promise.all([
      world.traffic.deliverAll(world.transport(0), toSurvivor),
      world.traffic.deliverAll(world.transport(1), toVictim),
    ]);
    await waitFor(
      "the victim to have answered some and to have model calls in flight",
      () =>
        answerReport(world!.slack.state, toVictim, shortParts).complete >= 5 &&
        world!.stub(1).inFlight.value > 0,
      30_000,
    );
    await victim.kill();
    const killedAt = Date.now();

    // Slack retries the events the dead process had taken; the survivor gets them.
    await world.traffic.deliverAll(world.transport(0), toVictim, { retryNum: 1 });
    const report = await settleAnswers(world.slack.state, origins, shortParts, {
      deadlineMs: Math.max(0, killedAt + (LOCK_TTL_SECONDS + 5) * 1000 - Date.now()),
      quietMs: (LOCK_TTL_SECONDS + 1) * 1000,
    });
    expect(describeReport(report, MENTIONS), world.logs()).toBe(exactlyOnce(MENTIONS));
  });
});
