import { openStore, type Store } from "@switchboard/core";
import { waitFor } from "@switchboard/core/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createWorld, type MatrixWorld, type RunningBot, startBot } from "./support/matrix/bot-fixture.ts";
import { botMention, relatesOf, threadMessage } from "./support/matrix/events.ts";
import type { RoomEvent } from "./support/matrix/homeserver-state.ts";

let world: MatrixWorld;
let store: Store;
let bot: RunningBot;

beforeEach(async () => {
  world = await createWorld();
  store = await openStore("memory://");
});
afterEach(async () => {
  await bot?.stop();
  await world.homeserver.close();
  await store.close();
});

/** The bot's post answering `id` (m.in_reply_to names it). */
const answerTo = (id: string) =>
  waitFor(`the bot's answer to ${id}`, () =>
    world.homeserver
      .eventsFrom(world.bot)
      .find((event) => relatesOf(event)["m.in_reply_to"]?.event_id === id),
  );
const mention = (text: string) => ({ msgtype: "m.text", ...botMention(world.bot, "Switchboard", text) });

describe("matrix end to end: conversations", () => {
  it("joins a room when an allowed user invites it, declines strangers, then answers there", async () => {
    bot = await startBot(world, store);
    const { homeserver, alice, bob, bot: botId } = world;
    const invited = homeserver.state.createRoom({ members: [alice, bob] });
    const stranger = homeserver.state.createRoom({ members: ["@eve:elsewhere.example"] });
    homeserver.invite(invited, alice, botId);
    homeserver.invite(stranger, "@eve:elsewhere.example", botId);

    await waitFor(
      "the bot to join",
      () => homeserver.state.room(invited).members.get(botId)?.membership === "join",
    );
    await waitFor(
      "the bot to decline",
      () => homeserver.state.room(stranger).members.get(botId)?.membership === "leave",
    );
    // The homeserver records the leave before the adapter has its answer and logs the decline.
    const declined = await waitFor("the decline to be logged", () =>
      bot.logger.lines.find((line) => line.message === "declined Matrix invite"),
    );
    expect(declined.fields).toMatchObject({ inviter: "@eve:elsewhere.example" });

    const id = homeserver.userSends(invited, alice, { msgtype: "m.text", body: "hello" });
    const question = homeserver.userSends(invited, alice, mention("now that you are here"));
    expect((await answerTo(question)).content.body).toBe("echo: now that you are here");
    expect(bot.outcomes.find((entry) => entry.message.id === id)?.outcome).toEqual({
      accepted: false,
      reason: "not-addressed",
    });
  });

  it("in a new DM, answers what was written after the invite but not the room's earlier history", async () => {
    bot = await startBot(world, store);
    const { homeserver, alice, bot: botId } = world;
    const room = homeserver.state.createRoom({ members: [alice] });
    const before = homeserver.userSends(room, alice, { msgtype: "m.text", body: "notes to self" });
    homeserver.invite(room, alice, botId, { isDirect: true });
    const firstWords = homeserver.userSends(room, alice, { msgtype: "m.text", body: "hi, are you there?" });

    expect((await answerTo(firstWords)).content.body).toBe("echo: hi, are you there?");
    expect(bot.outcomes.map((entry) => entry.message.id)).not.toContain(before);
    expect(homeserver.state.accountData.get(botId)?.get("m.direct")).toEqual({ [alice]: [room, world.dm] });
  });

  it("answers a mention in a thread rooted at it, formatted, pinging no one, with no typing for an instant answer", async () => {
    bot = await startBot(world, store, { answer: (text) => `**Sure.** You said: ${text}` });
    const question = world.homeserver.userSends(world.group, world.alice, mention("what is up?"));
    const answer = await answerTo(question);

    expect(answer.content).toEqual({
      msgtype: "m.notice",
      body: "**Sure.** You said: what is up?",
      format: "org.matrix.custom.html",
      formatted_body: "<p><strong>Sure.</strong> You said: what is up?</p>",
      "m.mentions": {},
      "m.relates_to": {
        rel_type: "m.thread",
        event_id: question,
        is_falling_back: true,
        "m.in_reply_to": { event_id: question },
      },
    });
    expect(await bot.turnKeyOf(question)).toBe(`matrix:${world.group.replace(":", "%3A")}:${question}`);
    // Typing shows only for a turn still running after the typing delay (see slack.calls.test.ts).
    expect(world.homeserver.typing.filter((entry) => entry.roomId === world.group)).toEqual([]);
  });

  it("continues the thread's conversation for a follow-up in the thread, without a mention", async () => {
    bot = await startBot(world, store);
    const root = world.homeserver.userSends(world.group, world.alice, mention("first question"));
    const first = await answerTo(root);
    const followUp = world.homeserver.userSends(world.group, world.bob, {
      msgtype: "m.text",
      body: "and a follow-up",
      ...threadMessage(root, first.event_id),
    });
    const second = await answerTo(followUp);

    expect(await bot.turnKeyOf(followUp)).toBe(await bot.turnKeyOf(root));
    expect(relatesOf(second)).toMatchObject({ rel_type: "m.thread", event_id: root });
  });

  it("continues a bot message's conversation when a user replies to it outside the thread", async () => {
    bot = await startBot(world, store);
    const root = world.homeserver.userSends(world.group, world.alice, mention("first question"));
    const botMessage = await answerTo(root);
    const reply = world.homeserver.userSends(world.group, world.bob, {
      msgtype: "m.text",
      body: "> <@switchboard:hs.test> echo: first question\n\nwhy is that?",
      "m.relates_to": { "m.in_reply_to": { event_id: botMessage.event_id } },
    });
    const answer = await answerTo(reply);

    expect(await bot.turnKeyOf(reply)).toBe(await bot.turnKeyOf(root));
    expect(answer.content.body).toBe("echo: why is that?");
    expect(relatesOf(answer)).toMatchObject({ rel_type: "m.thread", event_id: root });
  });

  it("never answers an edit as a new question", async () => {
    bot = await startBot(world, store);
    const question = world.homeserver.userSends(world.group, world.alice, mention("typo questoin"));
    await answerTo(question);
    const edit = world.homeserver.userSends(world.group, world.alice, {
      msgtype: "m.text",
      body: "* Switchboard: typo question",
      "m.new_content": {
        msgtype: "m.text",
        body: "Switchboard: typo question",
        "m.mentions": { user_ids: [world.bot] },
      },
      "m.mentions": { user_ids: [world.bot] },
      "m.relates_to": { rel_type: "m.replace", event_id: question },
    });
    expect(await bot.outcomeOf(edit)).toEqual({ accepted: false, reason: "edit" });
    const marker = world.homeserver.userSends(world.dm, world.alice, { msgtype: "m.text", body: "marker" });
    await answerTo(marker);
    expect(bot.responder.turns.map((turn) => turn.text)).toEqual(["typo questoin", "marker"]);
  });

  it("keeps a DM room as one conversation and runs !commands there", async () => {
    bot = await startBot(world, store);
    const first = world.homeserver.userSends(world.dm, world.alice, { msgtype: "m.text", body: "hi" });
    const second = world.homeserver.userSends(world.dm, world.alice, { msgtype: "m.text", body: "again" });
    const help = world.homeserver.userSends(world.dm, world.alice, { msgtype: "m.text", body: "!help" });

    expect(await bot.turnKeyOf(first)).toBe(`matrix:${world.dm.replace(":", "%3A")}`);
    expect(await bot.turnKeyOf(second)).toBe(await bot.turnKeyOf(first));
    // Matrix clients keep `/` for their own commands: the help names the prefix that works here.
    const helpText = String((await answerTo(help)).content.body);
    expect(helpText).toContain("!stop");
    expect(helpText).not.toMatch(/\/(stop|help)\b/);
    expect(relatesOf(await answerTo(first))).toEqual({ "m.in_reply_to": { event_id: first } });
  });

  it("answers a DM question asked in a thread inside that thread, still one DM conversation", async () => {
    bot = await startBot(world, store);
    const top = world.homeserver.userSends(world.dm, world.alice, { msgtype: "m.text", body: "top level" });
    await answerTo(top);
    const inThread = world.homeserver.userSends(world.dm, world.alice, {
      msgtype: "m.text",
      body: "in a thread",
      ...threadMessage(top, top),
    });
    const answer = await answerTo(inThread);
    expect(relatesOf(answer)).toMatchObject({ rel_type: "m.thread", event_id: top });
    expect(await bot.turnKeyOf(inThread)).toBe(await bot.turnKeyOf(top));
  });

  it("answers with plain replies in reply mode, a reply to the bot continuing the conversation", async () => {
    bot = await startBot(world, store, { config: { replyMode: "reply", msgtype: "m.text" } });
    const question = world.homeserver.userSends(world.group, world.alice, mention("in reply mode"));
    const answer = await answerTo(question);
    expect(relatesOf(answer)).toEqual({ "m.in_reply_to": { event_id: question } });
    expect(answer.content.msgtype).toBe("m.text");
    const reply = world.homeserver.userSends(world.group, world.alice, {
      msgtype: "m.text",
      body: "more",
      "m.relates_to": { "m.in_reply_to": { event_id: answer.event_id } },
    });
    await answerTo(reply);
    expect(await bot.turnKeyOf(reply)).toBe(await bot.turnKeyOf(question));
  });

  it("with encryption off, logs and skips encrypted rooms, saying at start-up why", async () => {
    bot = await startBot(world, store);
    const { homeserver, alice, bot: botId } = world;
    const secret = homeserver.state.createRoom({ members: [alice, botId], encrypted: true });
    const encrypted = homeserver.userSends(
      secret,
      alice,
      {
        algorithm: "m.megolm.v1.aes-sha2",
        ciphertext: "AwgAEn…",
        session_id: "s",
        sender_key: "k",
        device_id: "D",
      },
      "m.room.encrypted",
    );
    const plaintext = homeserver.userSends(secret, alice, {
      msgtype: "m.text",
      body: "plaintext in an encrypted room",
    });
    const marker = homeserver.userSends(world.dm, alice, { msgtype: "m.text", body: "marker" });
    await answerTo(marker);

    const startup = bot.logger.lines.find((line) => /end-to-end encryption is not active/.test(line.message));
    expect(startup?.level).toBe("info");
    expect(String(startup?.fields.reason)).toMatch(/matrix\.encryption is off/);
    const skipped = bot.logger.lines.filter(
      (line) => line.fields.roomId === secret && /encrypted Matrix room/.test(line.message),
    );
    expect(skipped.map((line) => line.fields.eventId)).toEqual([encrypted, plaintext]);
    expect(homeserver.eventsFrom(botId).filter((event: RoomEvent) => event.room_id === secret)).toEqual([]);
    expect(bot.outcomes.map((entry) => entry.message.id)).not.toContain(plaintext);
  });
});
