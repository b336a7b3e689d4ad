/**
 * Readable channel names for the operator console: the Slack adapter asks `conversations.info`
 * once per channel for a while; without `channels:read` it names nothing and nothing breaks.
 */
import { afterEach, describe, expect, it } from "vitest";
import { threadConversation } from "../packages/slack/src/conversations.ts";
import { type SlackBot, startSlackBot } from "./support/slack/slack-bot.ts";
import { ALICE_DM, ALL_SCOPES, GENERAL, TEAM_ID } from "./support/slack/workspace-state.ts";

describe("Slack place names", () => {
  let bot: SlackBot;
  afterEach(async () => {
    await bot?.close();
  });

  it("names a channel by conversations.info, once for all its threads, and a DM as one", async () => {
    bot = await startSlackBot();
    const place = (channel: string, ts: string) =>
      bot.adapter.describePlace(threadConversation(TEAM_ID, channel, ts));
    expect(await place(GENERAL, "1700000000.000100")).toEqual({ room: "#general" });
    expect(await place(GENERAL, "1700000000.000200")).toEqual({ room: "#general" });
    expect(bot.slack.state.callsTo("conversations.info")).toEqual([{ channel: GENERAL }]);
    expect(await place(ALICE_DM, "1700000000.000300")).toEqual({ room: "direct message" });
  });

  it("names nothing without channels:read, and asks again next time", async () => {
    bot = await startSlackBot({ scopes: ALL_SCOPES.filter((scope) => scope !== "channels:read") });
    const conversation = threadConversation(TEAM_ID, GENERAL, "1700000000.000100");
    expect(await bot.adapter.describePlace(conversation)).toBeUndefined();
    expect(await bot.adapter.describePlace(conversation)).toBeUndefined();
    expect(bot.slack.state.callsTo("conversations.info")).toHaveLength(2);
  });
});
