import { scriptedResponder, waitFor } from "@switchboard/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import {
  eventCallback,
  messageEvent,
  SIGNING_SECRET,
  slackSignature,
} from "./support/slack/event-payloads.ts";
import { type SlackBot, startSlackBot } from "./support/slack/slack-bot.ts";
import { ALICE, ALICE_DM, BOT_USER_ID, GENERAL } from "./support/slack/workspace-state.ts";

describe("Slack request verification (X-Slack-Signature v0, 5-minute window)", () => {
  let bot: SlackBot;
  const responder = scriptedResponder((turn) => `echo: ${turn.text}`);
  afterEach(async () => {
    await bot?.close();
    responder.turns.length = 0;
  });

  /** A mention event body, stored in the fake workspace so it could be answered if it got through. */
  const mentionBody = (text: string) => {
    const message = bot.slack.state.add({ channel: GENERAL, user: ALICE, text: `<@${BOT_USER_ID}> ${text}` });
    return JSON.stringify(eventCallback(messageEvent(bot.slack.state, message)));
  };

  const refused = [
    { name: "signed with the wrong secret", signature: { secret: "not-the-signing-secret" } },
    { name: "signed six minutes ago (a replay)", signature: { skewSeconds: -360 } },
    { name: "not signed at all", signature: { unsigned: true } },
  ];
  for (const { name, signature } of refused) {
    it(`refuses an event ${name} with 401, and nothing is processed`, async () => {
      bot = await startSlackBot({ responder });
      const response = await bot.slack.http.send(
        mentionBody(`forged: ${name}`),
        "application/json",
        {},
        signature,
      );
      expect(response.status).toBe(401);
      await bot.slack.say(ALICE_DM, "marker");
      await waitFor("the marker's answer", () => bot.slack.state.botMessages()[0]);
      await bot.engine.idle();
      expect(responder.turns.map((turn) => turn.text)).toEqual(["marker"]);
      expect(bot.slack.state.botMessages()).toHaveLength(1);
    });
  }

  it("refuses a body changed after signing", async () => {
    bot = await startSlackBot({ responder });
    const body = mentionBody("original");
    const timestamp = Math.floor(Date.now() / 1000);
    const response = await fetch(`http://127.0.0.1:${bot.adapter.port}/slack/events`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-slack-request-timestamp": String(timestamp),
        "x-slack-signature": slackSignature(SIGNING_SECRET, timestamp, body),
      },
      body: body.replace("original", "tampered"),
    });
    expect(response.status).toBe(401);
  });

  it("refuses a forged slash command", async () => {
    bot = await startSlackBot({ responder });
    const form = new URLSearchParams({
      command: "/switchboard",
      text: "reset",
      user_id: ALICE,
      channel_id: GENERAL,
      team_id: "T0SWITCH",
      trigger_id: "1.2.3",
      response_url: "http://127.0.0.1:1/x",
    });
    const response = await bot.slack.http.send(
      form.toString(),
      "application/x-www-form-urlencoded",
      {},
      { secret: "forged" },
    );
    expect(response.status).toBe(401);
    expect(bot.slack.state.ephemeral).toEqual([]);
  });

  it("accepts a correctly signed event four minutes old", async () => {
    bot = await startSlackBot({ responder });
    const response = await bot.slack.http.send(
      mentionBody("a little late"),
      "application/json",
      {},
      { skewSeconds: -240 },
    );
    expect(response.status).toBe(200);
    await waitFor("the answer", () => bot.slack.state.botMessages()[0]);
    expect(responder.turns.map((turn) => turn.text)).toEqual(["a little late"]);
  });
});
