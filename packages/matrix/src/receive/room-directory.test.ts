import { createMemoryLogger } from "@switchboard/core/testing";
import { describe, expect, it } from "vitest";
import { RoomDirectory } from "./room-directory.ts";

const notFound = () => Object.assign(new Error("M_NOT_FOUND"), { statusCode: 404, errcode: "M_NOT_FOUND" });

function directory(options: {
  members?: string[];
  dms?: string[];
  encrypted?: boolean;
  events?: Record<string, unknown>;
  rule?: "marked" | "marked-or-two-members";
  recheckUnencryptedMs?: number;
  now?: () => number;
}) {
  const calls: string[] = [];
  const client = {
    dms: { isDm: (roomId: string) => (options.dms ?? []).includes(roomId) },
    async getJoinedRoomMembers(roomId: string) {
      calls.push(`members ${roomId}`);
      return options.members ?? [];
    },
    async getRoomStateEvent(roomId: string, type: string) {
      calls.push(`state ${roomId} ${type}`);
      if (!options.encrypted) throw notFound();
      return { algorithm: "m.megolm.v1.aes-sha2" };
    },
    async getEvent(roomId: string, eventId: string) {
      calls.push(`event ${roomId} ${eventId}`);
      const event = options.events?.[eventId];
      if (event === undefined) throw notFound();
      return event;
    },
  };
  const logger = createMemoryLogger();
  const { recheckUnencryptedMs, now } = options;
  const rooms = new RoomDirectory(client, logger, options.rule, {
    ...(recheckUnencryptedMs === undefined ? {} : { recheckUnencryptedMs }),
    ...(now ? { now } : {}),
  });
  return { rooms, calls, logger };
}

const member = {
  event_id: "$m",
  type: "m.room.member",
  sender: "@c:hs",
  origin_server_ts: 0,
  content: {},
  state_key: "@c:hs",
};

describe("RoomDirectory", () => {
  it.each([
    ["listed in m.direct", { dms: ["!r"], members: ["@a", "@b", "@c"] }, true],
    ["with two joined members, not marked", { members: ["@bot", "@alice"] }, false],
    [
      "with two joined members, under the fallback",
      { members: ["@bot", "@alice"], rule: "marked-or-two-members" as const },
      true,
    ],
    [
      "with three joined members, under the fallback",
      { members: ["@bot", "@alice", "@bob"], rule: "marked-or-two-members" as const },
      false,
    ],
  ])("a room %s is direct: %s", async (_name, options, expected) => {
    expect(await directory(options).rooms.isDirect("!r")).toBe(expected);
  });

  it("never asks for members when only m.direct decides", async () => {
    const { rooms, calls } = directory({ members: ["@bot", "@alice"] });
    await rooms.isDirect("!r");
    expect(calls).toEqual([]);
  });

  it("under the fallback, decides once and keeps the decision through membership changes", async () => {
    const { rooms, calls } = directory({ members: ["@bot", "@alice"], rule: "marked-or-two-members" });
    expect(await rooms.isDirect("!r")).toBe(true);
    rooms.observe("!r", member);
    expect(await rooms.isDirect("!r")).toBe(true);
    expect(calls).toEqual(["members !r"]);
  });

  it("knows a room is encrypted from its state, or from an m.room.encryption event", async () => {
    expect(await directory({ encrypted: true }).rooms.isEncrypted("!r")).toBe(true);
    const { rooms, calls } = directory({ encrypted: false });
    expect(await rooms.isEncrypted("!r")).toBe(false);
    rooms.observe("!r", { ...member, type: "m.room.encryption", state_key: "" });
    expect(await rooms.isEncrypted("!r")).toBe(true);
    expect(calls).toEqual(["state !r m.room.encryption"]);
  });

  it("without the timeline (send-only), re-reads an unencrypted room's state once that fact is old", async () => {
    let clock = 0;
    const options = { recheckUnencryptedMs: 30_000, now: () => clock, encrypted: false };
    const { rooms, calls } = directory(options);
    expect(await rooms.isEncrypted("!r")).toBe(false);
    options.encrypted = true;
    clock = 29_999;
    expect(await rooms.isEncrypted("!r")).toBe(false);
    clock = 30_000;
    expect(await rooms.isEncrypted("!r")).toBe(true);
    clock = 1_000_000;
    expect(await rooms.isEncrypted("!r")).toBe(true);
    expect(calls).toEqual(["state !r m.room.encryption", "state !r m.room.encryption"]);
  });

  it("places answers by the thread of remembered events, fetching the ones it has not seen", async () => {
    const { rooms, calls } = directory({
      events: {
        $old: { content: { body: "x", "m.relates_to": { rel_type: "m.thread", event_id: "$root" } } },
        $top: { content: {} },
      },
    });
    rooms.rememberThread("$seen", "$t1");
    expect(await rooms.threadOf("!r", "$seen")).toBe("$t1");
    expect(await rooms.threadOf("!r", "$old")).toBe("$root");
    expect(await rooms.threadOf("!r", "$old")).toBe("$root");
    expect(await rooms.threadOf("!r", "$top")).toBeUndefined();
    expect(calls).toEqual(["event !r $old", "event !r $top"]);
  });

  it("answers outside a thread, with a warning, when the event cannot be fetched", async () => {
    const { rooms, logger } = directory({});
    expect(await rooms.threadOf("!r", "$gone")).toBeUndefined();
    expect(logger.lines.map((line) => line.level)).toEqual(["warn"]);
  });
});
