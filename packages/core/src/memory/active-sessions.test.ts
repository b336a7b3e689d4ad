import { describe, expect, it } from "vitest";
import { testStoreBackends } from "../store/test-backends.ts";
import { LiveSessions } from "./active-sessions.ts";

const backends = testStoreBackends("live-sessions");

describe.each(backends)("LiveSessions on %s", (_name, open) => {
  it("lists live conversations with their last activity and participants, until removed", async () => {
    const { store, cleanup } = await open();
    try {
      const sessions = new LiveSessions(store);
      await sessions.touch("slack:T1:C1", "ana", 1_000);
      await sessions.touch("slack:T1:C1", "ben", 2_000);
      await sessions.touch("slack:T1:C1", "ana", 1_500);
      await sessions.touch("slack:T1:C2", undefined, 3_000);
      const listed = (await sessions.list()).sort(([a], [b]) => a.localeCompare(b));
      expect(listed).toEqual([
        ["slack:T1:C1", { lastActivityAt: 2_000, participants: ["ana", "ben"] }],
        ["slack:T1:C2", { lastActivityAt: 3_000, participants: [] }],
      ]);
      await sessions.remove("slack:T1:C1");
      expect((await sessions.list()).map(([key]) => key)).toEqual(["slack:T1:C2"]);
    } finally {
      await store.close();
      await cleanup();
    }
  });
});
