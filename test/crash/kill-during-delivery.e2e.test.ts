/**
 * SIGKILL while answers are being delivered. Slack has no idempotency key, so the guarantee rests on
 * the outbox: an answer computed before the crash is delivered from it after the restart (the model
 * is not asked again), and a post Slack already stored (found by its metadata in the thread) is not
 * posted again.
 *
 * - between chunks: a three-message answer whose first message Slack stored, the process killed
 *   while waiting for Slack's response to it;
 * - after posting: a one-message answer Slack stored, the process killed before it heard back.
 *
 * Slack's response to the chosen posts is held (the stand-in stores the message first), so the kill
 * lands exactly there; every other mention is answered completely before the kill.
 */
import { waitFor } from "@switchboard/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { answerReport } from "../support/crash/answers.ts";
import { CrashWorld, type StoreKind } from "../support/crash/crash-world.ts";
import { holdPosts } from "../support/crash/held-posts.ts";
import {
  answerWith,
  longAnswer,
  longParts,
  shortAnswer,
  shortParts,
  tokens,
} from "../support/crash/scripted-answers.ts";
import { describeReport, exactlyOnce, settleAnswers } from "../support/crash/settle.ts";

const MENTIONS = 100;
/** Few enough that a limit on concurrent turns or deliveries cannot be filled by held posts alone. */
const HELD = 5;
const LOCK_TTL_SECONDS = 3;

let world: CrashWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const cases = [
  {
    point: "between chunks",
    text: longAnswer,
    parts: longParts,
    hold: (token: string) => `Part 1 of ${token}:`,
  },
  { point: "after posting", text: shortAnswer, parts: shortParts, hold: shortAnswer },
] as const;

describe.each<StoreKind>(["sqlite", "redis"])("SIGKILL during delivery (%s)", (store) => {
  it.each(cases)(
    "$point: every mention gets exactly one complete answer after the restart",
    { timeout: 120_000 },
    async ({ text, parts, hold }) => {
      world = await CrashWorld.start({ store, lockTtlSeconds: LOCK_TTL_SECONDS, script: answerWith(text) });
      const all = tokens("q", MENTIONS);
      const heldTokens = all.slice(-HELD);
      const held = holdPosts(world.slack.api, (posted) =>
        heldTokens.some((token) => posted.includes(hold(token))),
      );
      const first = await world.startCli();
      const origins = all.map((token) => world!.traffic.mention(token));
      await world.traffic.deliverAll(world.transport(), origins);

      const others = origins.filter((origin) => !heldTokens.includes(origin.token));
      const before = () =>
        `${held.held.value}/${HELD} held, ${answerReport(world!.slack.state, others, parts).complete}/${others.length} complete`;
      await waitFor(
        "the held posts and the other answers before the kill",
        () =>
          held.held.value >= HELD &&
          answerReport(world!.slack.state, others, parts).complete === others.length,
        30_000,
      ).catch((error: unknown) => {
        throw new Error(`${String(error)} (${before()})\n${world?.logs()}`);
      });
      const modelCallsBeforeKill = world.stub().received.value;
      await first.kill();
      held.release();

      await world.startCli();
      await world.traffic.deliverAll(world.transport(), origins, { retryNum: 1 });
      const report = await settleAnswers(world.slack.state, origins, parts, {
        deadlineMs: (LOCK_TTL_SECONDS + 8) * 1000,
        quietMs: (LOCK_TTL_SECONDS + 1) * 1000,
      });
      expect(describeReport(report, MENTIONS), world.logs()).toBe(exactlyOnce(MENTIONS));
      // The held answers were computed before the crash: delivered from the outbox, not asked again.
      expect(world.stub().received.value, "model calls after the restart").toBe(modelCallsBeforeKill);
    },
  );
});
