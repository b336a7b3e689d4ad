import { describe, expect, it } from "vitest";
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
  for (let n = 1; n <= count; n++) await sessions.append(KEY, [say(n)]);
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
        messageCount: 0,
        recordedUpTo: 0,
      });
      await writeMessages(sessions, 3);
      await sessions.markRecorded(KEY, 2);
      expect(await sessions.record(KEY)).toMatchObject({ messageCount: 3, recordedUpTo: 2 });
      await sessions.end(KEY, 3);
      expect(await sessions.record(KEY)).toBeUndefined();
      expect(await sessions.lines(KEY, 1, 3)).toEqual([]);
    }));

  it("appends a turn's lines after the counter and reads ranges; nothing is appended without a live session", () =>
    withSessions(open, async (sessions) => {
      expect(await sessions.append(KEY, [say(1)])).toBeUndefined();
      await sessions.start(KEY, 1_000, "");
      await writeMessages(sessions, 3);
      const after = await sessions.append(KEY, [say(4), say(5)]);
      expect(after?.messageCount).toBe(5);
      expect(await sessions.lines(KEY, 4, 5)).toEqual([say(4), say(5)]);
      expect(await sessions.lines(KEY, -3, 2)).toEqual([say(1), say(2)]);
      expect(await sessions.lines(KEY, 3, 2)).toEqual([]);
      // The recorded marker never moves back.
      await sessions.markRecorded(KEY, 4);
      await sessions.markRecorded(KEY, 2);
      expect((await sessions.record(KEY))?.recordedUpTo).toBe(4);
      await sessions.end(KEY, 5);
      expect(await sessions.lines(KEY, 1, 5)).toEqual([]);
    }));

  it("starts a session with the turn that opens it: the record counts the turn's lines", () =>
    withSessions(open, async (sessions) => {
      const started = await sessions.start(KEY, 1_000, "Ana runs the Lisbon office.", [say(1), say(2)]);
      expect(started).toEqual({
        startedAt: 1_000,
        context: "Ana runs the Lisbon office.",
        digest: null,
        messageCount: 2,
        recordedUpTo: 0,
      });
      expect(await sessions.record(KEY)).toEqual(started);
      expect(await sessions.lines(KEY, 1, 2)).toEqual([say(1), say(2)]);
      await writeMessages(sessions, 1);
      expect(await sessions.lines(KEY, 3, 3)).toEqual([say(1)]);
    }));

  it("ending also removes a line a crash left after the counter", () =>
    withSessions(open, async (sessions) => {
      await sessions.start(KEY, 1_000, "");
      await writeMessages(sessions, 4);
      // A crash between writing a turn's line and moving the counter: line 5 exists, the counter says 4.
      await sessions.append(KEY, [say(5)]);
      const record = await sessions.record(KEY);
      if (record) await sessions.start(KEY, record.startedAt, "");
      await writeMessages(sessions, 4);
      await sessions.end(KEY, 4);
      expect(await sessions.lines(KEY, 1, 5)).toEqual([]);
    }));

  it("keeps conversations apart", () =>
    withSessions(open, async (sessions) => {
      await sessions.start(KEY, 1_000, "here");
      await sessions.start(`${KEY}0`, 1_000, "");
      await sessions.append(KEY, [say(1)]);
      await sessions.append(`${KEY}0`, [{ role: "user", text: "elsewhere" }]);
      await sessions.end(`${KEY}0`, 1);
      expect(await sessions.lines(KEY, 1, 1)).toEqual([say(1)]);
      expect(await sessions.record(KEY)).toMatchObject({ context: "here" });
    }));
});
