import { waitFor } from "@switchboard/core/testing";
import { describe, expect, it } from "vitest";
import { useMatrixBots } from "./support/matrix/bot-lifecycle.ts";
import { relatesOf } from "./support/matrix/events.ts";

const bots = useMatrixBots();

describe("matrix sync: events that are not what a homeserver sends", () => {
  it("skips malformed events and goes on answering", async () => {
    const { world } = bots;
    const bot = await bots.start();
    const hostile: Record<string, unknown>[] = [
      { type: "m.room.message", sender: world.alice, content: null },
      { type: "m.room.message", sender: world.alice, content: { msgtype: "m.text", body: ["not", "text"] } },
      {
        type: "m.room.message",
        sender: world.alice,
        content: { msgtype: "m.text", body: "x", "m.relates_to": 5 },
      },
      {
        type: "m.room.message",
        sender: world.alice,
        content: { msgtype: "m.text", body: "x", "m.mentions": { user_ids: "everyone" } },
      },
      { type: "m.room.member", sender: world.alice, state_key: 7, content: { membership: null } },
      { type: 42, sender: null, content: "nothing" },
      {
        type: "m.room.message",
        sender: world.alice,
        content: { msgtype: "m.text", body: "y" },
        unsigned: null,
      },
      {
        type: "m.room.message",
        sender: world.alice,
        content: { msgtype: "m.text", body: "z" },
        event_id: null,
      },
      { type: "m.room.encrypted", sender: world.alice, content: { algorithm: null } },
      { type: "m.room.message", sender: world.alice, content: { msgtype: null, body: null, format: 3 } },
    ];
    for (const event of hostile)
      world.homeserver.state.append(
        world.dm,
        event as unknown as Parameters<typeof world.homeserver.state.append>[1],
      );
    const question = world.homeserver.userSends(world.dm, world.alice, {
      msgtype: "m.text",
      body: "still there?",
    });
    await waitFor("the answer after the malformed events", () =>
      world.homeserver
        .eventsFrom(world.bot)
        .find((event) => relatesOf(event)["m.in_reply_to"]?.event_id === question),
    );
    // Readable text with a malformed relation is still a message; what cannot be read is skipped.
    expect(bot.responder.turns.map((turn) => turn.text)).toEqual(["x", "x", "y", "still there?"]);
  });
});
