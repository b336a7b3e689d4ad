import { describe, expect, it } from "vitest";
import { openStore } from "../store/open-store.ts";
import { testStoreBackends } from "../store/test-backends.ts";
import type { Store } from "../store/types.ts";
import { SessionStore } from "./session-store.ts";

const KEY = "slack:T1:C1:1700.1";

const backends = testStoreBackends("session-store");

async function withSessions(
  open: () => Promise<{ store: Store; cleanup(): Promise<void> }>,
  test: (sessions: SessionStore) => Promise<void>,
): Promise<void> {
  const { store, cleanup } = await open();
  try {
    await test(new SessionStore(store));
  } finally {
    await store.close();
    await cleanup();
  }
}

const say = (n: number) => ({ role: n % 2 === 1 ? "user" : "bot", text: `message ${n}` }) as const;

async function writeMessages(sessions: SessionStore, count: number): Promise<void> {
  for (let n = 1; n <= count; n++) await sessions.writeLine(KEY, n, say(n));
}

describe.each(backends)("SessionStore on %s", (_name, open) => {
  it("keeps the live session's record and digest until the session ends", () =>
    withSessions(open, async (sessions) => {
      expect(await sessions.record(KEY)).toBeUndefined();
      expect(await sessions.setDigest(KEY, "nothing live")).toBe(false);
      expect(await sessions.record(KEY)).toBeUndefined();
      await sessions.start(KEY, 1_000, "Ana runs the Lisbon office.");
      expect(await sessions.setDigest(KEY, "They went over the budget.")).toBe(true);
      expect(await sessions.record(KEY)).toEqual({
        startedAt: 1_000,
        context: "Ana runs the Lisbon office.",
        digest: "They went over the budget.",
      });
      await writeMessages(sessions, 3);
      await sessions.end(KEY, 3);
      expect(await sessions.record(KEY)).toBeUndefined();
      expect(await sessions.lines(KEY, 1, 3)).toEqual([]);
    }));

  it("reads ranges of lines; rewriting a position replaces it; ending also removes a line left after the count", () =>
    withSessions(open, async (sessions) => {
      await sessions.start(KEY, 1_000, "");
      await writeMessages(sessions, 5);
      await sessions.writeLine(KEY, 5, { role: "user", text: "message 5, again" });
      expect(await sessions.lines(KEY, 4, 5)).toEqual([say(4), { role: "user", text: "message 5, again" }]);
      expect(await sessions.lines(KEY, -3, 2)).toEqual([say(1), say(2)]);
      expect(await sessions.lines(KEY, 3, 2)).toEqual([]);
      // A run that failed after writing its line: the counter stayed at 4.
      await sessions.end(KEY, 4);
      expect(await sessions.lines(KEY, 1, 5)).toEqual([]);
    }));

  it("keeps conversations apart", () =>
    withSessions(open, async (sessions) => {
      await sessions.start(KEY, 1_000, "here");
      await sessions.writeLine(KEY, 1, say(1));
      await sessions.writeLine(`${KEY}0`, 1, { role: "user", text: "elsewhere" });
      await sessions.end(`${KEY}0`, 1);
      expect(await sessions.lines(KEY, 1, 1)).toEqual([say(1)]);
      expect(await sessions.record(KEY)).toMatchObject({ context: "here" });
    }));
});

describe("SessionStore.window: what a memory prompt shows of the session", () => {
  const CONTEXT = "Remembered: Ana runs the Lisbon office.";
  const C = "context" as const;
  it.each([
    { name: "no messages yet: the context alone", written: 0, upTo: 0, limit: 30, context: true, shown: [C] },
    { name: "no context and no messages", written: 0, upTo: 0, limit: 30, context: false, shown: [] },
    {
      name: "context first while it fits",
      written: 3,
      upTo: 3,
      limit: 30,
      context: true,
      shown: [C, 1, 2, 3],
    },
    {
      name: "context and 29 messages fill 30",
      written: 29,
      upTo: 29,
      limit: 30,
      context: true,
      shown: [C, ...range(1, 29)],
    },
    {
      name: "30 messages push the context out",
      written: 30,
      upTo: 30,
      limit: 30,
      context: true,
      shown: range(1, 30),
    },
    {
      name: "only the latest `limit`",
      written: 100,
      upTo: 100,
      limit: 30,
      context: true,
      shown: range(71, 100),
    },
    {
      name: "up to a message, not past it",
      written: 40,
      upTo: 35,
      limit: 30,
      context: false,
      shown: range(6, 35),
    },
    { name: "a larger window", written: 100, upTo: 100, limit: 80, context: false, shown: range(21, 100) },
  ])("$name", async ({ written, upTo, limit, context, shown }) => {
    const store = await openStore("memory://");
    const sessions = new SessionStore(store);
    await sessions.start(KEY, 1, context ? CONTEXT : "");
    await writeMessages(sessions, written);
    expect(await sessions.window(KEY, upTo, limit)).toEqual(
      shown.map((item) => (item === C ? { role: "system", text: CONTEXT } : say(item))),
    );
    await store.close();
  });
});

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, index) => from + index);
}
