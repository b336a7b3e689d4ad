/**
 * A model that hangs or fails, through the real CLI on Slack: the turn ends within
 * timeoutSeconds × attempts with one clear sentence in the thread, `maxRetries: 0` makes exactly
 * one call, and SIGTERM while a call hangs stops the process within the lock TTL.
 */
import { waitFor } from "@switchboard/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { postsFor } from "../support/crash/answers.ts";
import { CrashWorld } from "../support/crash/crash-world.ts";
import { pause } from "../support/crash/settle.ts";
import { fail, hang } from "../support/model/chat-request.ts";
import { BOT_ID } from "../support/slack/workspace-state.ts";

const LOCK_TTL_SECONDS = 3;

let world: CrashWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** Every bot post in the origin's thread (answers, sentences, notices). */
function botPostsIn(origin: { message: { channel: string }; threadTs: string }) {
  return world!.slack.state
    .thread(origin.message.channel, origin.threadTs)
    .filter((m) => m.bot_id === BOT_ID);
}

describe("a hung or failing model, through the CLI", () => {
  it("a hung model: the turn gives up within timeoutSeconds × attempts, with one clear sentence", {
    timeout: 120_000,
  }, async () => {
    world = await CrashWorld.start({
      store: "sqlite",
      lockTtlSeconds: LOCK_TTL_SECONDS,
      script: () => hang(),
      // The in-turn retries alone (later retries: test/crash/retry-later-kill.e2e.test.ts).
      modelLimits: { maxRetries: 2, timeoutSeconds: 2, retryLater: { attempts: 0, firstDelaySeconds: 60 } },
    });
    await world.startCli();
    const origin = world.traffic.mention("q001");
    const started = Date.now();
    await world.traffic.deliver(world.transport(), origin);
    const sentence = await waitFor("the sentence in the thread", () => botPostsIn(origin)[0], 20_000);
    const elapsedMs = Date.now() - started;
    expect(sentence.text).toContain(
      "The model did not answer in time (3 attempts of 2 s). Please try again.",
    );
    expect(world.stub().received.value).toBe(3);
    // 3 attempts of 2 s, plus backoff between them (at most 1 s and 2 s).
    expect(elapsedMs).toBeLessThan(3 * 2_000 + 3_000 + 2_000);
    // Nothing follows it: no "still working", no "timed out".
    await pause(1_500);
    expect(botPostsIn(origin).map((post) => post.text)).toEqual([sentence.text]);
    expect(postsFor(world.slack.state, origin)).toHaveLength(0);
  });

  it("maxRetries 0 makes exactly one model call", { timeout: 120_000 }, async () => {
    world = await CrashWorld.start({
      store: "sqlite",
      lockTtlSeconds: LOCK_TTL_SECONDS,
      script: () => fail(500),
      modelLimits: { maxRetries: 0, retryLater: { attempts: 0, firstDelaySeconds: 60 } },
    });
    await world.startCli();
    const origin = world.traffic.mention("q002");
    await world.traffic.deliver(world.transport(), origin);
    const sentence = await waitFor("the sentence in the thread", () => botPostsIn(origin)[0], 20_000);
    expect(sentence.text).toContain("The model is not answering right now (provider error).");
    await pause(1_000);
    expect(world.stub().received.value).toBe(1);
  });

  it("SIGTERM during a hung model call exits within the lock TTL", { timeout: 120_000 }, async () => {
    world = await CrashWorld.start({
      store: "sqlite",
      lockTtlSeconds: LOCK_TTL_SECONDS,
      script: () => hang(),
      // Far longer than the test: only the shutdown can end the call.
      modelLimits: { timeoutSeconds: 300 },
    });
    const cli = await world.startCli();
    for (const token of ["q010", "q011", "q012"]) {
      await world.traffic.deliver(world.transport(), world.traffic.mention(token));
    }
    await world.stub().inFlight.atLeast(3);
    const started = Date.now();
    const exit = await cli.terminate();
    const elapsedMs = Date.now() - started;
    expect(exit, cli.stderr).toEqual({ code: 0, signal: null });
    expect(elapsedMs, cli.stderr).toBeLessThan(LOCK_TTL_SECONDS * 1000);
    // The hung requests were given up on by the process, not left to the stub.
    await waitFor("the hung requests to close", () => world!.stub().inFlight.value === 0, 2_000);
  });
});
