import { createMemoryLogger } from "@switchboard/core/testing";
import { describe, expect, it } from "vitest";
import { fillTimelineGaps, mergeGap } from "./gap-filler.ts";
import { readSyncBatch } from "./sync-response.ts";

const e = (id: string) => ({ event_id: id, type: "m.room.message", sender: "@a:hs", content: {} });
const ids = (events: readonly unknown[]) => events.map((event) => (event as { event_id: string }).event_id);

describe("mergeGap", () => {
  it.each([
    ["puts the gap in front, oldest first", ["$4", "$5"], ["$3", "$2", "$1"], ["$1", "$2", "$3", "$4", "$5"]],
    ["drops events the timeline already has", ["$3", "$4"], ["$3", "$2"], ["$2", "$3", "$4"]],
    ["drops repeats within the gap", ["$9"], ["$2", "$2", "$1"], ["$1", "$2", "$9"]],
    ["empty gap", ["$1"], [], ["$1"]],
  ])("%s", (_name, timeline, backfill, expected) => {
    expect(ids(mergeGap(timeline.map(e), backfill.map(e)))).toEqual(expected);
  });
});

describe("fillTimelineGaps", () => {
  const response = () => ({
    next_batch: "s20",
    rooms: {
      join: {
        "!known": { timeline: { events: [e("$19"), e("$20")], limited: true, prev_batch: "s18" } },
        "!new": { timeline: { events: [e("$n")], limited: true, prev_batch: "s17" } },
        "!quiet": { timeline: { events: [e("$q")], limited: false } },
      },
    },
  });
  const pages: Record<string, { chunk: unknown[]; end?: string }> = {
    s18: { chunk: [e("$18"), e("$17")], end: "s16" },
    s16: { chunk: [e("$16")], end: "s15" },
    s15: { chunk: [] },
  };

  it("pages back to the last token in rooms it already knew, and marks the timeline complete", async () => {
    const raw = response();
    const calls: string[] = [];
    await fillTimelineGaps(readSyncBatch(raw), "s15", new Set(["!known", "!quiet"]), {
      maxEvents: 100,
      logger: createMemoryLogger(),
      fetchMessages: async (roomId, from, to) => {
        calls.push(`${roomId} ${from}→${to}`);
        return pages[from] ?? { chunk: [] };
      },
    });
    expect(calls).toEqual(["!known s18→s15", "!known s16→s15", "!known s15→s15"]);
    expect(ids(raw.rooms.join["!known"].timeline.events)).toEqual(["$16", "$17", "$18", "$19", "$20"]);
    expect(raw.rooms.join["!known"].timeline.limited).toBe(false);
    expect(ids(raw.rooms.join["!new"].timeline.events)).toEqual(["$n"]);
  });

  it("stops at the limit and says the rest of the gap was not answered", async () => {
    const raw = response();
    const logger = createMemoryLogger();
    await fillTimelineGaps(readSyncBatch(raw), "s15", new Set(["!known"]), {
      maxEvents: 2,
      logger,
      fetchMessages: async (_roomId, from) => pages[from] ?? { chunk: [] },
    });
    expect(ids(raw.rooms.join["!known"].timeline.events)).toEqual(["$17", "$18", "$19", "$20"]);
    expect(logger.lines.some((line) => line.level === "warn" && /back-fill limit/.test(line.message))).toBe(
      true,
    );
  });
});
