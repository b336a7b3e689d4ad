import { chunkMarkdown } from "@switchboard/core/adapter";
import { longAnswerPieces, scriptedResponder, streamedAnswer, waitFor } from "@switchboard/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { toSlackTexts } from "../packages/slack/src/send/slack-poster.ts";
import { type SlackBot, startSlackBot } from "./support/slack/slack-bot.ts";
import { ALICE_DM, BOT_USER_ID, GENERAL } from "./support/slack/workspace-state.ts";

const MENTION = `<@${BOT_USER_ID}>`;

/** What Slack shows for an answer posted the ordinary way: each markdown chunk as mrkdwn. */
const expectedTexts = (answer: string) => chunkMarkdown(answer, 3_500).flatMap(toSlackTexts);

function timedAnswer(pieces: readonly string[], paceMs: number) {
  const times = { lastPieceAt: 0 };
  const write = streamedAnswer({ pieces, paceMs });
  const responder = scriptedResponder(async (turn) => {
    const text = await write(turn);
    times.lastPieceAt = Date.now();
    return text;
  });
  return { responder, times };
}

describe("Slack streaming (real Bolt and Web API client against the stand-in)", () => {
  let bot: SlackBot;
  afterEach(async () => {
    await bot?.close();
  });

  it("streams into the thread with chat.startStream/appendStream/stopStream, continues in a second message, ends exact", async () => {
    const pieces = longAnswerPieces(110);
    const answer = pieces.join("");
    const { responder, times } = timedAnswer(pieces, 12);
    bot = await startSlackBot({ responder });
    const root = await bot.slack.say(GENERAL, `${MENTION} tell me everything`);
    const first = await waitFor("the first streamed text", () => bot.slack.state.botMessages()[0]);
    const visibleAt = Date.now();
    await bot.engine.idle();

    const state = bot.slack.state;
    expect(visibleAt).toBeLessThan(times.lastPieceAt);
    expect(first.thread_ts).toBe(root.ts);
    expect(state.callsTo("chat.startStream")).toHaveLength(1);
    expect(state.callsTo("chat.appendStream").length).toBeGreaterThan(1);
    expect(state.callsTo("chat.stopStream")).toHaveLength(1);
    expect(state.botMessages().map((message) => message.text)).toEqual(expectedTexts(answer));
    expect(bot.slack.api.streams.openStreams()).toEqual([]);
    expect(bot.slack.api.streams.messageRate.breaches).toEqual([]);
  });

  it("grows a posted message with chat.update where Slack does not offer streaming to the app", async () => {
    const pieces = longAnswerPieces(30);
    const answer = pieces.join("");
    const { responder, times } = timedAnswer(pieces, 15);
    bot = await startSlackBot({ responder, streaming: false });
    await bot.slack.say(GENERAL, `${MENTION} explain`);
    await waitFor("the first streamed text", () => bot.slack.state.botMessages()[0]);
    const visibleAt = Date.now();
    await bot.engine.idle();

    const state = bot.slack.state;
    expect(visibleAt).toBeLessThan(times.lastPieceAt);
    expect(state.callsTo("chat.postMessage")).toHaveLength(1);
    expect(state.callsTo("chat.update").length).toBeGreaterThan(1);
    expect(state.botMessages().map((message) => message.text)).toEqual(expectedTexts(answer));
    expect(bot.slack.api.streams.messageRate.breaches).toEqual([]);
  });

  it("ends exact when Slack rate-limits an append or an edit of the preview (429 with Retry-After)", async () => {
    for (const streaming of [true, false]) {
      const pieces = longAnswerPieces(30);
      const answer = pieces.join("");
      const { responder } = timedAnswer(pieces, 15);
      bot = await startSlackBot({ responder, streaming });
      const method = streaming ? "chat.appendStream" : "chat.update";
      bot.slack.api.rateLimits.set(method, { retryAfterSeconds: 1, times: 1 });
      await bot.slack.say(GENERAL, `${MENTION} explain`);
      await waitFor(`${method} refused once`, () => bot.slack.api.rateLimits.get(method)?.times === 0);
      await bot.engine.idle();
      const state = bot.slack.state;
      expect(state.botMessages().map((message) => message.text)).toEqual(expectedTexts(answer));
      expect(bot.slack.api.streams.openStreams()).toEqual([]);
      await bot.close();
    }
  });

  it("shows progress in the thread status where Slack shows one", async () => {
    const responder = scriptedResponder(async (turn) => {
      // A tool starts once the working indicator is up (it shows after a short delay).
      await waitFor("the thread status", () => bot.slack.state.statuses.length > 0);
      // The adapter notes the status once Slack's reply to setStatus is back.
      await new Promise((resolve) => setTimeout(resolve, 100));
      turn.onEvent?.({ kind: "progress", agent: "billing", status: "billing is checking your invoice…" });
      await new Promise((resolve) => setTimeout(resolve, 50));
      return "Your invoice is paid.";
    });
    // Each DM message its own thread: Slack shows a thread status there.
    bot = await startSlackBot({ responder, config: { dmConversations: "per-thread" } });
    await bot.slack.say(ALICE_DM, "is my invoice paid?");
    await waitFor("the answer", () => bot.slack.state.botMessages()[0]);
    await bot.engine.idle();
    expect(bot.slack.state.statuses.map((status) => status.status)).toContain(
      "billing is checking your invoice…",
    );
    expect(bot.slack.state.botMessages().map((message) => message.text)).toEqual(["Your invoice is paid."]);
  });
});
