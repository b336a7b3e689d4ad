import { describe, expect, it } from "vitest";
import { testStoreBackends } from "../store/test-backends.ts";
import { LiveSessions } from "./active-sessions.ts";

const backends = testStoreBackends("live-sessions");

describe.each(backends)("LiveSessions on %s", (_name, open) => {
  it("keeps last activity and participants, and finds the quiet ones by activity until removed", async () => {
    const { store, cleanup } = await open();
    try {
      const sessions = new LiveSessions(store);
      await sessions.touch("slack:T1:C1", "ana", 1_000);
      await sessions.touch("slack:T1:C1", "ben", 2_000);
      await sessions.touch("slack:T1:C1", "ana", 1_500);
      await sessions.touch("slack:T1:C2", undefined, 3_000);
      expect(await sessions.get("slack:T1:C1")).toEqual({
        lastActivityAt: 2_000,
        participants: ["ana", "ben"],
      });
      expect(await sessions.quietSince(2_500, 10)).toEqual([
        ["slack:T1:C1", { lastActivityAt: 2_000, participants: ["ana", "ben"] }],
      ]);
      expect((await sessions.quietSince(3_000, 10)).map(([key]) => key)).toEqual([
        "slack:T1:C1",
        "slack:T1:C2",
      ]);
      expect((await sessions.quietSince(3_000, 1)).map(([key]) => key)).toEqual(["slack:T1:C1"]);
      await sessions.remove("slack:T1:C1");
      expect((await sessions.quietSince(3_000, 10)).map(([key]) => key)).toEqual(["slack:T1:C2"]);
      expect(await sessions.count()).toBe(1);
    } finally {
      await store.close();
      await cleanup();
    }
  });

  it("moves a session that becomes active again out of the quiet range", async () => {
    const { store, cleanup } = await open();
    try {
      const sessions = new LiveSessions(store);
      await sessions.touch("discord:G1:C1:T1", "ana", 1_000);
      await sessions.touch("discord:G1:C1:T1", "ana", 9_000);
      expect(await sessions.quietSince(5_000, 10)).toEqual([]);
    } finally {
      await store.close();
      await cleanup();
    }
  });
});
