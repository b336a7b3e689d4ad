import { scriptedResponder, waitFor } from "@switchboard/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { SlackAdapter } from "../../packages/slack/src/slack-adapter.ts";
import { APPROVED_ANSWER, startApprovalTeam } from "../support/approval-scenario.ts";
import { FakeSlack } from "../support/slack/fake-slack.ts";
import { type SlackBot, startSlackBot } from "../support/slack/slack-bot.ts";
import {
  ALICE,
  ALL_SCOPES,
  BOT_USER_ID,
  CUSTOMIZE_SCOPE,
  GENERAL,
  type StoredMessage,
} from "../support/slack/workspace-state.ts";
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

  it("without chat:write.customize streams the agent's name first and ends with it in front", async () => {
    bot = await startSlackBot({
      identities: SUPPORT_IDENTITIES,
      config: { streamEditIntervalMs: 250 },
      responder: scriptedResponder(
        streamedAs("billing", ["Refunds take ", "five days ", "to ", "arrive", "."]),
      ),
    });
    await bot.slack.say(GENERAL, `${MENTION} where is my refund?`);
    await bot.engine.idle();

    const [start] = bot.slack.state.callsTo("chat.startStream");
    expect(start?.username).toBeUndefined();
    // The first streamed markdown (as `markdown_text` or in `chunks`) starts with the name.
    expect(JSON.stringify(start)).toContain("**Billing:** Refunds");
    expect(bot.slack.state.botMessages().map((message) => message.text)).toEqual([
      "*Billing:* Refunds take five days to arrive.",
    ]);
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

describe("an approval prompt from an agent with a display, on Slack", () => {
  let slack: FakeSlack;
  let team: Awaited<ReturnType<typeof startApprovalTeam<SlackAdapter>>> | undefined;
  afterEach(async () => {
    await team?.stop();
    await slack?.close();
  });

  it("keeps the agent's name and icon when a press turns the buttons into the outcome", async () => {
    slack = await FakeSlack.start({ transport: "http", scopes: WITH_CUSTOMIZE });
    const adapter = new SlackAdapter({ ...slack.adapterConfig(), streaming: false });
    slack.connectHttp(() => adapter.port);
    team = await startApprovalTeam(adapter, { display: { name: "Front desk", icon: ":bellhop_bell:" } });
    await slack.say(GENERAL, `<@${BOT_USER_ID}> refund my 40 EUR`);
    const hasButtons = (message: StoredMessage) =>
      (message.blocks ?? []).some((block) => block.type === "actions");
    const prompt = await waitFor("the approval prompt", () => slack.state.botMessages().find(hasButtons));
    expect(prompt).toMatchObject({ username: "Front desk", icons: { emoji: ":bellhop_bell:" } });

    await slack.pressButton(prompt, "switchboard_approve", ALICE);
    const answer = await waitFor("the answer", () =>
      slack.state.botMessages().find((message) => message.text === APPROVED_ANSWER),
    );
    await team.engine.idle();

    expect(hasButtons(prompt)).toBe(false);
    expect(prompt).toMatchObject({ username: "Front desk", icons: { emoji: ":bellhop_bell:" } });
    expect(answer).toMatchObject({ username: "Front desk", icons: { emoji: ":bellhop_bell:" } });
  });
});
