import { openStore, type Store } from "@switchboard/core";
import { waitFor } from "@switchboard/core/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createWorld, type MatrixWorld, type RunningBot, startBot } from "./support/matrix/bot-fixture.ts";
import { botMention, relatesOf } from "./support/matrix/events.ts";

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

const answerTo = (id: string) =>
  waitFor(`the bot's answer to ${id}`, () =>
    world.homeserver
      .eventsFrom(world.bot)
      .find((event) => relatesOf(event)["m.in_reply_to"]?.event_id === id),
  );
const say = (room: string, body: string) =>
  world.homeserver.userSends(room, world.alice, { msgtype: "m.text", body });

describe("matrix end to end: direct chats are what m.direct / is_direct say", () => {
  it("treats a room of the bot and one person that nobody marked as direct as a group room", async () => {
    bot = await startBot(world, store);
    const { homeserver, alice, bot: botId } = world;
    const pair = homeserver.state.createRoom({ members: [alice, botId] });
    const unaddressed = say(pair, "just thinking aloud");
    const question = homeserver.userSends(pair, alice, {
      msgtype: "m.text",
      ...botMention(botId, "Switchboard", "a question"),
    });
    const answer = await answerTo(question);
    // A thread rooted at the mention, as in any group room.
    expect(relatesOf(answer).rel_type).toBe("m.thread");
    expect((await bot.outcomeOf(unaddressed)).accepted).toBe(false);
  });

  it("keeps a DM made by an is_direct invite a DM when a third person joins: same conversation, plain replies", async () => {
    bot = await startBot(world, store);
    const { homeserver, alice, bob, bot: botId } = world;
    const room = homeserver.state.createRoom({ members: [alice] });
    homeserver.invite(room, alice, botId, { isDirect: true });
    const first = say(room, "first question");
    const firstAnswer = await answerTo(first);
    expect(relatesOf(firstAnswer).rel_type).toBeUndefined();

    homeserver.state.setMembership(room, bob, "join", bob);
    const second = say(room, "second question, now with Bob here");
    const secondAnswer = await answerTo(second);
    expect(relatesOf(secondAnswer).rel_type).toBeUndefined();
    expect(await bot.turnKeyOf(second)).toBe(await bot.turnKeyOf(first));
  });

  it("with the two-member fallback, decides once and keeps the decision when someone joins", async () => {
    bot = await startBot(world, store, { config: { directRooms: "marked-or-two-members" } });
    const { homeserver, alice, bob, bot: botId } = world;
    const pair = homeserver.state.createRoom({ members: [alice, botId] });
    const first = say(pair, "no mention needed here");
    expect(relatesOf(await answerTo(first)).rel_type).toBeUndefined();
    homeserver.state.setMembership(pair, bob, "join", bob);
    const second = say(pair, "still direct");
    expect(relatesOf(await answerTo(second)).rel_type).toBeUndefined();
    expect(await bot.turnKeyOf(second)).toBe(await bot.turnKeyOf(first));
  });
});

describe("matrix end to end: invited to an encrypted room without working encryption", () => {
  it("joins and posts one plain notice saying it cannot read the room and how to reach it", async () => {
    bot = await startBot(world, store);
    const { homeserver, alice, bot: botId } = world;
    const secret = homeserver.state.createRoom({ members: [alice], encrypted: true });
    homeserver.invite(secret, alice, botId, { isDirect: true });
    const notice = await waitFor("the notice", () =>
      homeserver.eventsFrom(botId).find((event) => event.room_id === secret),
    );
    expect(notice.content.msgtype).toBe("m.notice");
    expect(String(notice.content.body)).toMatch(/cannot read encrypted messages/);
    expect(String(notice.content.body)).toMatch(/encryption turned off/);
    expect(homeserver.state.room(secret).members.get(botId)?.membership).toBe("join");
    expect(homeserver.eventsFrom(botId).filter((event) => event.room_id === secret)).toHaveLength(1);
  });

  it("declines the invite with the reason when configured to", async () => {
    bot = await startBot(world, store, { config: { encryptedRooms: "decline" } });
    const { homeserver, alice, bot: botId } = world;
    const secret = homeserver.state.createRoom({ members: [alice], encrypted: true });
    homeserver.invite(secret, alice, botId);
    await waitFor(
      "the decline",
      () => homeserver.state.room(secret).members.get(botId)?.membership === "leave",
    );
    const leave = homeserver.state
      .room(secret)
      .events.map((stored) => stored.event)
      .find(
        (event) =>
          event.type === "m.room.member" && event.state_key === botId && event.content.membership === "leave",
      );
    expect(String(leave?.content.reason)).toMatch(/cannot read end-to-end encrypted rooms/);
    expect(homeserver.eventsFrom(botId).filter((event) => event.room_id === secret)).toEqual([]);
  });
});
