import { describe, expect, it } from "vitest";
import { historicalEventIds } from "./history.ts";
import { readSyncBatch } from "./sync-response.ts";

const message = (id: string) => ({
  event_id: id,
  type: "m.room.message",
  sender: "@alice:hs",
  content: { body: id },
});
const member =
  (membership: string) =>
  (id: string, who = "@bot:hs") => ({
    event_id: id,
    type: "m.room.member",
    sender: who,
    state_key: who,
    content: { membership },
  });
const join = member("join");
const invite = member("invite");

function batch(rooms: Record<string, unknown[]>) {
  const join = Object.fromEntries(
    Object.entries(rooms).map(([id, events]) => [id, { timeline: { events } }]),
  );
  return readSyncBatch({ next_batch: "s9", rooms: { join } });
}

describe("historicalEventIds", () => {
  it.each([
    ["first start: everything is history", { "!a": [message("$1"), message("$2")] }, true, [], ["$1", "$2"]],
    ["known room: nothing is history", { "!a": [message("$1")] }, false, ["!a"], []],
    [
      "new room: up to and including our join",
      { "!n": [message("$old"), join("$j"), message("$new")] },
      false,
      [],
      ["$old", "$j"],
    ],
    [
      "new room: up to our invite; what was written to us while joining counts",
      { "!n": [message("$old"), invite("$i"), message("$hi"), join("$j"), message("$new")] },
      false,
      [],
      ["$old", "$i"],
    ],
    [
      "new room: someone else's invite does not count",
      { "!n": [invite("$i", "@carol:hs"), message("$x"), join("$j")] },
      false,
      [],
      ["$i", "$x", "$j"],
    ],
    [
      "new room: someone else's join does not count",
      { "!n": [message("$old"), join("$j", "@carol:hs"), message("$new")] },
      false,
      [],
      ["$old", "$j", "$new"],
    ],
    [
      "new room without our join in view: all of it",
      { "!n": [message("$1"), message("$2")] },
      false,
      [],
      ["$1", "$2"],
    ],
    ["mixed rooms", { "!a": [message("$k")], "!n": [join("$j"), message("$n")] }, false, ["!a"], ["$j"]],
  ])("%s", (_name, rooms, initial, joinedBefore, expected) => {
    const ids = historicalEventIds(batch(rooms), {
      initial,
      joinedBefore: new Set(joinedBefore),
      botUserId: "@bot:hs",
    });
    expect([...ids].sort()).toEqual([...expected].sort());
  });
});
