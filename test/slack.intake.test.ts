import { createMemoryLogger, scriptedResponder, waitFor } from "@switchboard/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { eventCallback, messageEvent } from "./support/slack/event-payloads.ts";
import { type SlackBot, startSlackBot } from "./support/slack/slack-bot.ts";
import { ALICE, ALICE_DM, BOT_USER_ID, GENERAL } from "./support/slack/workspace-state.ts";

const JSON_TYPE = "application/json";
const FORM_TYPE = "application/x-www-form-urlencoded";

describe("Slack requests that are signed but not what Slack sends", () => {
  let bot: SlackBot;
  const responder = scriptedResponder((turn) => `echo: ${turn.text}`);
  const logger = createMemoryLogger();
  afterEach(async () => {
    await bot?.close();
    responder.turns.length = 0;
    logger.lines.length = 0;
  });

  /** The process still answers: a DM gets its echo. */
  async function stillAnswers(): Promise<void> {
    await bot.slack.say(ALICE_DM, "still there?");
    await waitFor("the answer after the hostile request", () =>
      bot.slack.state.botMessages().find((message) => message.text === "echo: still there?"),
    );
  }

  const hostile = [
    { name: "a JSON body that is null", body: "null", type: JSON_TYPE, status: 400 },
    { name: "a JSON array", body: "[1,2]", type: JSON_TYPE, status: 400 },
    { name: "a JSON string", body: '"event_callback"', type: JSON_TYPE, status: 400 },
    { name: "malformed JSON", body: "{", type: JSON_TYPE, status: 400 },
    {
      name: "an event callback whose event is null",
      body: JSON.stringify({ type: "event_callback", event: null }),
      type: JSON_TYPE,
      status: 400,
    },
    { name: "a form whose payload is null", body: "payload=null", type: FORM_TYPE, status: 400 },
    { name: "a form whose payload is not JSON", body: "payload=%7B", type: FORM_TYPE, status: 400 },
    { name: "a form that is no command", body: "text=hello", type: FORM_TYPE, status: 400 },
    { name: "no content type at all", body: "{}", type: "", status: 415 },
  ];
  for (const { name, body, type, status } of hostile) {
    it(`answers ${status} to ${name}, and the process goes on`, async () => {
      bot = await startSlackBot({ responder });
      expect((await bot.slack.http.send(body, type)).status).toBe(status);
      await stillAnswers();
    });
  }

  it("does not process an event sent with a content type other than JSON", async () => {
    bot = await startSlackBot({ responder });
    const message = bot.slack.state.add({ channel: GENERAL, user: ALICE, text: `<@${BOT_USER_ID}> sneaky` });
    const body = JSON.stringify(eventCallback(messageEvent(bot.slack.state, message)));
    expect((await bot.slack.http.send(body, "text/plain")).status).toBe(415);
    await stillAnswers();
    expect(responder.turns.map((turn) => turn.text)).toEqual(["still there?"]);
  });

  it("refuses a request signed ten minutes in the future like a stale one", async () => {
    bot = await startSlackBot({ responder });
    const message = bot.slack.state.add({
      channel: GENERAL,
      user: ALICE,
      text: `<@${BOT_USER_ID}> from later`,
    });
    const body = JSON.stringify(eventCallback(messageEvent(bot.slack.state, message)));
    expect((await bot.slack.http.send(body, JSON_TYPE, {}, { skewSeconds: 600 })).status).toBe(401);
    await stillAnswers();
    expect(responder.turns.map((turn) => turn.text)).toEqual(["still there?"]);
  });

  it("writes a few log lines for hundreds of refused requests, not one each", async () => {
    bot = await startSlackBot({ responder, logger });
    const kinds = [
      () => bot.slack.http.send("null", JSON_TYPE),
      () => bot.slack.http.send("{}", JSON_TYPE, {}, { secret: "forged" }),
      () => bot.slack.http.send("{}", JSON_TYPE, {}, { skewSeconds: -3_600 }),
    ];
    for (let round = 0; round < 100; round += 1) await Promise.all(kinds.map((send) => send()));
    const refusals = logger.lines.filter((line) => line.message.startsWith("refused"));
    expect(refusals.length).toBeGreaterThan(0);
    expect(refusals.length).toBeLessThanOrEqual(kinds.length);
    await bot.adapter.stop();
    const summary = logger.lines.find((line) => line.fields.suppressed !== undefined);
    expect(summary?.fields.suppressed).toBe(300 - kinds.length);
  });
});

describe("Slack Socket Mode envelopes that are not what Slack sends", () => {
  let bot: SlackBot;
  afterEach(async () => {
    await bot?.close();
  });

  for (const payload of [null, [], { type: "event_callback", event: null }]) {
    it(`drops an events_api envelope with the payload ${JSON.stringify(payload)}, and the process goes on`, async () => {
      bot = await startSlackBot({ transport: "socket" });
      const socket = bot.slack.socket;
      if (!socket) throw new Error("no socket");
      // The stand-in's envelope type allows only objects; a broken peer sends anything. Not acked:
      // nothing was taken.
      await expect(
        socket.send("events_api", payload as unknown as Record<string, unknown>, 0, 300),
      ).rejects.toThrow(/no ack/);
      await bot.slack.say(ALICE_DM, "still there?");
      await waitFor("the answer", () => bot.slack.state.botMessages()[0]);
    });
  }
});
