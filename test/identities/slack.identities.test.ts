import { scriptedResponder, waitFor } from "@switchboard/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { type SlackBot, startSlackBot } from "../support/slack/slack-bot.ts";
import { ALL_SCOPES, BOT_USER_ID, CUSTOMIZE_SCOPE, GENERAL } from "../support/slack/workspace-state.ts";
import { SUPPORT_IDENTITIES, streamedAs } from "../support/team-identities.ts";

const MENTION = `<@${BOT_USER_ID}>`;
const WITH_CUSTOMIZE = [...ALL_SCOPES, CUSTOMIZE_SCOPE];

describe("agent identities on Slack (real Bolt and Web API client against the stand-in)", () => {
  let bot: SlackBot;
  afterEach(async () => {
    await bot?.close();
  });

  it("posts an agent's answer under its name and emoji with chat:write.customize", async () => {
    bot = await startSlackBot({
      scopes: WITH_CUSTOMIZE,
      identities: SUPPORT_IDENTITIES,
      responder: scriptedResponder(() => ({ text: "Your invoice is paid.", agent: "billing" })),
    });
    await bot.slack.say(GENERAL, `${MENTION} is my invoice paid?`);
    const answer = await waitFor("the answer", () => bot.slack.state.botMessages()[0]);
    await bot.engine.idle();

    const [call] = bot.slack.state.callsTo("chat.postMessage");
    expect(call).toMatchObject({ username: "Billing", icon_emoji: ":moneybag:" });
    expect(call?.icon_url).toBeUndefined();
    expect(answer).toMatchObject({
      text: "Your invoice is paid.",
      username: "Billing",
      icons: { emoji: ":moneybag:" },
    });
    // What any Slack client reads back from the thread.
    const thread = await bot.reader.conversations.replies({ channel: GENERAL, ts: answer.thread_ts ?? "" });
    const read: Record<string, unknown> = { ...thread.messages?.find((message) => message.ts === answer.ts) };
    expect(read.username).toBe("Billing");
  });

  it("keeps the name and image icon on every chat.update of a streamed answer", async () => {
    const pieces = ["The router ", "needs a ", "restart: ", "hold the button ", "for ten seconds."];
    bot = await startSlackBot({
      scopes: WITH_CUSTOMIZE,
      identities: SUPPORT_IDENTITIES,
      streaming: false,
      config: { streamEditIntervalMs: 250 },
      responder: scriptedResponder(streamedAs("tech_support", pieces)),
    });
    await bot.slack.say(GENERAL, `${MENTION} my wifi is down`);
    await bot.engine.idle();

    const state = bot.slack.state;
    const posts = state.callsTo("chat.postMessage");
    const updates = state.callsTo("chat.update");
    expect(posts).toHaveLength(1);
    expect(updates.length).toBeGreaterThan(0);
    for (const call of [...posts, ...updates])
      expect(call).toMatchObject({ username: "Tech support", icon_url: "https://example.com/tech.png" });
    const [message] = state.botMessages();
    expect(message).toMatchObject({
      text: pieces.join(""),
      username: "Tech support",
      icons: { image_48: "https://example.com/tech.png" },
    });
  });

  it("starts Slack's own stream under the agent's name and icon", async () => {
    bot = await startSlackBot({
      scopes: WITH_CUSTOMIZE,
      identities: SUPPORT_IDENTITIES,
      config: { streamEditIntervalMs: 250 },
      responder: scriptedResponder(
        streamedAs("billing", ["Refunds take ", "five days ", "to ", "arrive", "."]),
      ),
    });
    await bot.slack.say(GENERAL, `${MENTION} where is my refund?`);
    await bot.engine.idle();

    const [start] = bot.slack.state.callsTo("chat.startStream");
    expect(start).toMatchObject({ username: "Billing", icon_emoji: ":moneybag:" });
    for (const call of bot.slack.state.callsTo("chat.update"))
      expect(call).toMatchObject({ username: "Billing", icon_emoji: ":moneybag:" });
    expect(bot.slack.state.botMessages()[0]).toMatchObject({
      text: "Refunds take five days to arrive.",
      username: "Billing",
    });
  });

  it("without chat:write.customize names the agent in bold in front, and doctor says what to add", async () => {
    bot = await startSlackBot({
      identities: SUPPORT_IDENTITIES,
      responder: scriptedResponder(() => ({ text: "Your invoice is paid.", agent: "billing" })),
    });
    await bot.slack.say(GENERAL, `${MENTION} is my invoice paid?`);
    const answer = await waitFor("the answer", () => bot.slack.state.botMessages()[0]);
    await bot.engine.idle();

    expect(answer.text).toBe("*Billing:* Your invoice is paid.");
    expect(answer.username).toBeUndefined();
    const [call] = bot.slack.state.callsTo("chat.postMessage");
    expect(call?.username).toBeUndefined();
    const { warnings } = await bot.adapter.check();
    expect(warnings.join("\n")).toContain("chat:write.customize");
  });

  it("speaks as the bot for an agent without a display, and for command replies", async () => {
    bot = await startSlackBot({
      scopes: WITH_CUSTOMIZE,
      identities: SUPPORT_IDENTITIES,
      responder: scriptedResponder(() => ({ text: "Booked for Tuesday.", agent: "scheduling" })),
    });
    await bot.slack.say(GENERAL, `${MENTION} book me in`);
    await bot.slack.say(GENERAL, `${MENTION} help`);
    await waitFor("two answers", () => bot.slack.state.botMessages().length >= 2);
    await bot.engine.idle();

    for (const call of bot.slack.state.callsTo("chat.postMessage")) expect(call.username).toBeUndefined();
    expect((await bot.adapter.check()).warnings.join("\n")).not.toContain("customize");
  });
});
