import { waitFor } from "@switchboard/core/testing";
import { describe, expect, it } from "vitest";
import { useMatrixBots } from "./support/matrix/bot-lifecycle.ts";
import { botMention, relatesOf } from "./support/matrix/events.ts";

const bots = useMatrixBots();
const { start, stop } = bots;

const say = (room: string, body: string) =>
  bots.world.homeserver.userSends(room, bots.world.alice, { msgtype: "m.text", body });
const answerTo = (id: string) =>
  waitFor(`the bot's answer to ${id}`, () =>
    bots.world.homeserver
      .eventsFrom(bots.world.bot)
      .find((event) => relatesOf(event)["m.in_reply_to"]?.event_id === id),
  );
const answersTo = (id: string) =>
  bots.world.homeserver
    .eventsFrom(bots.world.bot)
    .filter((event) => relatesOf(event)["m.in_reply_to"]?.event_id === id);

describe("matrix end to end: no replays, no gaps", () => {
  it("on a first start, answers nothing written before start-up", async () => {
    const oldDm = say(bots.world.dm, "an old DM");
    const oldMention = bots.world.homeserver.userSends(bots.world.group, bots.world.alice, {
      msgtype: "m.text",
      ...botMention(bots.world.bot, "Switchboard", "an old mention"),
    });
    const bot = await start();
    const fresh = say(bots.world.dm, "a new DM");
    await answerTo(fresh);

    expect(bot.responder.turns.map((turn) => turn.text)).toEqual(["a new DM"]);
    expect(answersTo(oldDm)).toEqual([]);
    expect(answersTo(oldMention)).toEqual([]);
  });

  it("after a restart answers what arrived while it was down, and nothing it had answered before", async () => {
    const first = await start();
    const before = say(bots.world.dm, "before the restart");
    await answerTo(before);
    await stop(first);

    const whileDown = say(bots.world.dm, "while the bot was down");
    const second = await start();
    await answerTo(whileDown);
    const after = say(bots.world.dm, "after the restart");
    await answerTo(after);

    expect(second.responder.turns.map((turn) => turn.text)).toEqual([
      "while the bot was down",
      "after the restart",
    ]);
    expect(answersTo(before)).toHaveLength(1);
  });

  it("fills a gap the homeserver left out of a limited timeline", async () => {
    const first = await start();
    await answerTo(say(bots.world.dm, "warm-up"));
    await stop(first);

    bots.world.homeserver.timelineLimit = 3;
    const missed = Array.from({ length: 8 }, (_, i) =>
      say(bots.world.dm, `message ${i + 1} during the outage`),
    );
    const second = await start();
    for (const id of missed) await answerTo(id);

    expect(bots.world.homeserver.requests.some((request) => /\/rooms\/[^/]+\/messages$/.test(request))).toBe(
      true,
    );
    expect(second.responder.turns.map((turn) => turn.text)).toEqual(
      missed.map((_, i) => `message ${i + 1} during the outage`),
    );
  });

  it("hands a batch on again after a failure while handling it, answering each message once", async () => {
    let failures = 0;
    const bot = await start({
      beforeAccept: (message) => {
        if (message.text === "second" && failures++ === 0) throw new Error("the store went away");
      },
    });
    // Written back to back, both arrive in one batch: "first" is accepted before "second" fails.
    const one = say(bots.world.dm, "first");
    const two = say(bots.world.dm, "second");
    await answerTo(two);
    await answerTo(one);

    expect(bot.outcomes.filter((entry) => entry.message.id === one).map((entry) => entry.outcome)).toEqual([
      { accepted: true, key: `matrix:${bots.world.dm.replace(":", "%3A")}` },
      { accepted: false, reason: "duplicate" },
    ]);
    expect(answersTo(one)).toHaveLength(1);
    expect(answersTo(two)).toHaveLength(1);
    expect(bot.logger.lines.some((line) => /handled again from the same token/.test(line.message))).toBe(
      true,
    );
  });

  it("hands a batch the last run did not finish to the next start, rather than losing it", async () => {
    const crashing = await start({
      beforeAccept: (message) => {
        if (message.text === "second") throw new Error("the process is going down");
      },
    });
    const one = say(bots.world.dm, "first");
    const two = say(bots.world.dm, "second");
    await waitFor("the failed batch", () =>
      crashing.logger.lines.some((line) => /same token/.test(line.message)),
    );
    await stop(crashing);

    const next = await start();
    await answerTo(two);
    expect(next.outcomes.find((entry) => entry.message.id === one)?.outcome).toEqual({
      accepted: false,
      reason: "duplicate",
    });
    expect(answersTo(one)).toHaveLength(1);
    expect(answersTo(two)).toHaveLength(1);
  });
});
