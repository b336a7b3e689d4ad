/**
 * SIGKILL while turns wait for their later retry: the provider answers 503, so every mention gets
 * a countdown (its retry recorded in the store first); the process is killed during the countdown,
 * the provider comes back, and a new process on the same store must answer each mention exactly
 * once — by editing its countdown — without a new message, and without a retry lost or doubled.
 */
import { afterEach, describe, expect, it } from "vitest";
import { CrashWorld, type StoreKind } from "../support/crash/crash-world.ts";
import { answerWith, shortAnswer, shortParts, tokens } from "../support/crash/scripted-answers.ts";
import { describeReport, exactlyOnce, settleAnswers } from "../support/crash/settle.ts";
import { fail } from "../support/model/chat-request.ts";
import { BOT_ID, GENERAL } from "../support/slack/workspace-state.ts";

const MENTIONS = 20;
const COUNTDOWN = "The model is not answering — trying again in";

let world: CrashWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe.each<StoreKind>(["sqlite", "redis"])("SIGKILL during a retry's countdown (%s)", (store) => {
  it("answers every mention exactly once after a restart, in place of its countdown", {
    timeout: 120_000,
  }, async () => {
    world = await CrashWorld.start({
      store,
      script: () => fail(503),
      // The circuit stays closed (five mentions can fail in a row here): this is about the retry record.
      modelLimits: { maxRetries: 0, retryLater: { attempts: 3, firstDelaySeconds: 5 } },
      config: { extra: { modelEndpoints: { circuit: { openAfterFailures: 0 } } } },
    });
    const first = await world.startCli();
    const origins = tokens("q", MENTIONS).map((token) => world!.traffic.mention(token));
    const delivered = await world.traffic.deliverAll(world.transport(), origins);
    expect(delivered.acked.length, world.logs()).toBe(MENTIONS);
    const countdowns = () =>
      origins.map(
        (origin) =>
          world!.slack.state
            .thread(GENERAL, origin.threadTs)
            .filter((message) => message.bot_id === BOT_ID && message.text.startsWith(COUNTDOWN)).length,
      );
    await waitUntil(
      () => countdowns().every((count) => count === 1),
      30_000,
      () => world!.logs(),
    );
    const countdownTs = origins.map(
      (origin) => world!.slack.state.thread(GENERAL, origin.threadTs).find((m) => m.bot_id === BOT_ID)?.ts,
    );
    await first.kill();

    world.script = answerWith(shortAnswer);
    await world.startCli();
    const report = await settleAnswers(world.slack.state, origins, shortParts, {
      deadlineMs: 40_000,
      quietMs: 6_000,
    });
    expect(describeReport(report, MENTIONS), world.logs()).toBe(exactlyOnce(MENTIONS));
    // Each answer is its countdown, edited: one bot message per thread.
    for (const [index, origin] of origins.entries()) {
      const posts = world.slack.state.thread(GENERAL, origin.threadTs).filter((m) => m.bot_id === BOT_ID);
      expect(posts.map((post) => post.ts)).toEqual([countdownTs[index]]);
    }
  });
});

async function waitUntil(check: () => boolean, timeoutMs: number, logs: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for every countdown\n${logs()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
