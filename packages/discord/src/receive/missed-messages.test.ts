import { describe, expect, it } from "vitest";
import { MissedMessages, PAGE } from "./missed-messages.ts";

/** A channel's history (ids ascending) and an engine that refuses while `down`. */
function harness(history: string[], options: { windowMs?: number; maxChannels?: number } = {}) {
  const taken: string[] = [];
  const events: string[] = [];
  const state = { down: false, now: 0, reads: [] as string[] };
  const missed = new MissedMessages<string>({
    read: async (channelId, afterId, limit) => {
      state.reads.push(`${channelId}>${afterId}`);
      return history
        .filter((id) => BigInt(id) > BigInt(afterId))
        .slice(0, limit)
        .map((id) => ({ id, message: id }));
    },
    handOver: async (id) => {
      if (state.down) throw new Error("store unavailable");
      // The engine's dedupe: a message taken before is not taken again.
      if (!taken.includes(id)) taken.push(id);
    },
    onCaughtUp: (channelId, count) => events.push(`caught up ${channelId} ${count}`),
    onGivenUp: (channelId, reason) => events.push(`gave up ${channelId}: ${reason}`),
    onRoundFailed: (channelId) => events.push(`round failed ${channelId}`),
    retryEveryMs: 60_000,
    windowMs: options.windowMs ?? 3_600_000,
    maxChannels: options.maxChannels ?? 10,
    now: () => state.now,
  });
  return { missed, taken, events, state };
}

describe("MissedMessages", () => {
  it("reads a channel back from its first refused message, in order, once the engine takes them", async () => {
    const { missed, taken, events, state } = harness(["100", "101", "102", "103", "104"]);
    taken.push("100", "102");
    state.down = true;
    missed.refused("c1", "101");
    missed.refused("c1", "103");
    await missed.catchUp();
    expect(events).toEqual(["round failed c1"]);
    expect(missed.behind).toBe(1);

    state.down = false;
    await missed.catchUp();
    // From just before 101: 102 is handed over again and dropped by the dedupe; 104 came meanwhile.
    expect(state.reads.at(-1)).toBe("c1>100");
    expect(taken).toEqual(["100", "102", "101", "103", "104"]);
    expect(events.at(-1)).toBe("caught up c1 4");
    expect(missed.behind).toBe(0);
    missed.pause();
  });

  it("pages through more than one page of history", async () => {
    const history = Array.from({ length: PAGE * 2 + 5 }, (_, index) => String(1_000 + index));
    const { missed, taken, events } = harness(history);
    missed.refused("c1", "1000");
    await missed.catchUp();
    expect(taken).toEqual(history);
    expect(events).toEqual([`caught up c1 ${history.length}`]);
    missed.pause();
  });

  it("stays behind when a message refused after the round read the history is not in it yet", async () => {
    const history = ["10", "11"];
    const { missed, events } = harness(history);
    missed.refused("c1", "10");
    // A live message refused later than the page the round reads.
    missed.refused("c1", "12");
    await missed.catchUp();
    expect(events).toEqual([]);
    expect(missed.behind).toBe(1);
    history.push("12");
    await missed.catchUp();
    expect(events).toEqual(["caught up c1 3"]);
    missed.pause();
  });

  it("gives a channel up after the window, and the oldest one when too many are behind", async () => {
    const { missed, events, state } = harness(["1", "2", "3"], { windowMs: 1_000, maxChannels: 2 });
    state.down = true;
    missed.refused("a", "1");
    state.now = 10;
    missed.refused("b", "2");
    missed.refused("c", "3");
    expect(events).toEqual(["gave up a: more than 2 channels behind"]);
    state.now = 2_000;
    await missed.catchUp();
    expect(events.slice(1)).toEqual([
      "gave up b: still refused 1 s after the first refusal",
      "gave up c: still refused 1 s after the first refusal",
    ]);
    expect(missed.behind).toBe(0);
    missed.pause();
  });

  it("reads back, after a stop and a start, what was refused before and what was sent meanwhile", async () => {
    const history = ["10", "11"];
    const { missed, taken, events, state } = harness(history);
    taken.push("10");
    missed.taken("c1", "10");
    missed.taken("c2", "20");
    state.down = true;
    missed.refused("c1", "11");
    missed.pause();
    history.push("12");
    state.down = false;
    state.now = 1_000;
    missed.resume();
    await missed.catchUp();
    expect(taken).toEqual(["10", "11", "12"]);
    // c2 had nothing new: read once, nothing to tell.
    expect(state.reads).toContain("c2>20");
    expect(events).toEqual(["caught up c1 2"]);
    expect(missed.behind).toBe(0);
    missed.pause();
  });

  it("gives up what was behind when the gateway was away longer than the window", async () => {
    const { missed, events, state } = harness(["1"], { windowMs: 1_000 });
    state.down = true;
    missed.refused("c1", "1");
    missed.pause();
    state.now = 5_000;
    missed.resume();
    expect(events).toEqual(["gave up c1: the gateway was away more than 1 s"]);
    expect(missed.behind).toBe(0);
    missed.pause();
  });
});
