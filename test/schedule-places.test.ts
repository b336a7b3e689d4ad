/**
 * Where the bot's own posts (a schedule's) go, per platform: a conversation a top-level message
 * started posts new messages in its channel, room or DM; one born in a thread stays in the thread.
 * And a person's time zone from their Slack profile (users.info), with and without users:read.
 */
import { type ConversationRef, decodeConversationKey, encodeConversationKey } from "@switchboard/core";
import { afterEach, describe, expect, it } from "vitest";
import { createDiscordAdapter } from "../packages/discord/src/index.ts";
import { createMatrixAdapter } from "../packages/matrix/src/index.ts";
import { createSlackAdapter } from "../packages/slack/src/index.ts";
import { type SlackBot, startSlackBot } from "./support/slack/slack-bot.ts";
import { ALICE, ALL_SCOPES } from "./support/slack/workspace-state.ts";

type PlaceFor = (
  conversation: ConversationRef,
  startedBy: string | undefined,
) => { post: ConversationRef; channel: ConversationRef };

function placesOf(placeFor: PlaceFor, key: string, startedBy: string | undefined) {
  const { post, channel } = placeFor(decodeConversationKey(key), startedBy);
  return { post: encodeConversationKey(post), channel: encodeConversationKey(channel) };
}

describe("where a schedule's posts go", () => {
  it("Slack: a channel or DM for a thread a top-level message started; the thread otherwise", async () => {
    const adapter = await createSlackAdapter({ botToken: "xoxb-test", appToken: "xapp-test" });
    const placeFor = adapter.placeForPosts.bind(adapter);
    expect(placesOf(placeFor, "slack:T1:C1:1700.000100", "C1:1700.000100")).toEqual({
      post: "slack:T1:C1",
      channel: "slack:T1:C1",
    });
    expect(placesOf(placeFor, "slack:T1:C1:1700.000100", "C1:1700.000200")).toEqual({
      post: "slack:T1:C1:1700.000100",
      channel: "slack:T1:C1",
    });
    expect(placesOf(placeFor, "slack:T1:D1:1700.000100", "D1:1700.000100")).toEqual({
      post: "slack:T1:D1",
      channel: "slack:T1:D1",
    });
    // A whole DM (dmConversations: per-dm) is its own place.
    expect(placesOf(placeFor, "slack:T1:D1", "D1:1700.000100")).toEqual({
      post: "slack:T1:D1",
      channel: "slack:T1:D1",
    });
    expect(placesOf(placeFor, "slack:T1:C1:1700.000100", undefined).post).toBe("slack:T1:C1:1700.000100");
  });

  it("Discord: a channel for a conversation a channel message started; a thread or a DM stays", async () => {
    const adapter = await createDiscordAdapter({ token: "discord-test-token" });
    const placeFor = adapter.placeForPosts.bind(adapter);
    expect(placesOf(placeFor, "discord:1:2:9", "9")).toEqual({ post: "discord:1:2", channel: "discord:1:2" });
    expect(placesOf(placeFor, "discord:1:2:3", "8")).toEqual({
      post: "discord:1:2:3",
      channel: "discord:1:2",
    });
    expect(placesOf(placeFor, "discord:@dm:5", "7")).toEqual({
      post: "discord:@dm:5",
      channel: "discord:@dm:5",
    });
  });

  it("Matrix: a room for a conversation a top-level message started; a thread or a DM room stays", async () => {
    const adapter = await createMatrixAdapter({
      homeserverUrl: "https://matrix.example.org",
      accessToken: "token",
    });
    const placeFor = adapter.placeForPosts.bind(adapter);
    expect(placesOf(placeFor, "matrix:!room%3Ahs:$root", "$root")).toEqual({
      post: "matrix:!room%3Ahs",
      channel: "matrix:!room%3Ahs",
    });
    expect(placesOf(placeFor, "matrix:!room%3Ahs:$root", "$reply")).toEqual({
      post: "matrix:!room%3Ahs:$root",
      channel: "matrix:!room%3Ahs",
    });
    expect(placesOf(placeFor, "matrix:!dm%3Ahs", "$any")).toEqual({
      post: "matrix:!dm%3Ahs",
      channel: "matrix:!dm%3Ahs",
    });
  });
});

describe("a person's Slack time zone", () => {
  let bot: SlackBot | undefined;
  afterEach(async () => {
    await bot?.close();
    bot = undefined;
  });

  it("comes from users.info, and is none without users:read or for a profile without one", async () => {
    bot = await startSlackBot();
    bot.slack.state.timeZones.set(ALICE, "Europe/Berlin");
    expect(await bot.adapter.userTimeZone(ALICE)).toBe("Europe/Berlin");
    expect(await bot.adapter.userTimeZone("U0NOZONE")).toBeUndefined();
    await bot.close();
    bot = await startSlackBot({ scopes: ALL_SCOPES.filter((scope) => scope !== "users:read") });
    bot.slack.state.timeZones.set(ALICE, "Europe/Berlin");
    expect(await bot.adapter.userTimeZone(ALICE)).toBeUndefined();
  });
});
