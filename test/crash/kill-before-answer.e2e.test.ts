/**
 * SIGKILL while the model is still thinking: 100 mentions accepted (acked with 200), their model
 * calls in flight, the process killed. A new process on the same store, with Slack's retries of every
 * event arriving, must answer each mention exactly once — without a third start and without waiting
 * for new messages.
 */
import { afterEach, describe, expect, it } from "vitest";
import { CrashWorld, type StoreKind } from "../support/crash/crash-world.ts";
import { answerWith, shortAnswer, shortParts, tokens } from "../support/crash/scripted-answers.ts";
import { describeReport, exactlyOnce, settleAnswers } from "../support/crash/settle.ts";
import { hang } from "../support/model/chat-request.ts";

const MENTIONS = 100;
const LOCK_TTL_SECONDS = 3;

let world: CrashWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe.each<StoreKind>(["sqlite", "redis"])("SIGKILL before the answer (%s)", (store) => {
  it("answers every mention exactly once after a restart and Slack's retries", {
    timeout: 120_000,
  }, async () => {
    world = await CrashWorld.start({ store, lockTtlSeconds: LOCK_TTL_SECONDS, script: () => hang() });
    const first = await world.startCli();
    const origins = tokens("q", MENTIONS).map((token) => world!.traffic.mention(token));
    const firstDelivery = await world.traffic.deliverAll(world.transport(), origins);
    expect(firstDelivery.acked.length, world.logs()).toBe(MENTIONS);
    await world.stub().inFlight.atLeast(1);
    await first.kill();

    world.script = answerWith(shortAnswer);
    await world.startCli();
    // Slack retries what it saw acked late or not at all; here: every event, once, to the new process.
    await world.traffic.deliverAll(world.transport(), origins, { retryNum: 1 });
    const report = await settleAnswers(world.slack.state, origins, shortParts, {
      // The bound: everything answered within one lock TTL + 5 s (plus start-up slack).
      deadlineMs: (LOCK_TTL_SECONDS + 8) * 1000,
      quietMs: (LOCK_TTL_SECONDS + 1) * 1000,
    });
    expect(describeReport(report, MENTIONS), world.logs()).toBe(exactlyOnce(MENTIONS));
  });
});
