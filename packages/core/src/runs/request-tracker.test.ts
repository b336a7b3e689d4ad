import { describe, expect, it, vi } from "vitest";
import { testStoreBackends } from "../store/test-backends.ts";
import type { RequestTimeouts } from "./request-due.ts";
import { RequestTracker } from "./request-tracker.ts";

const timeouts: RequestTimeouts = {
  noticeAfterSeconds: 60,
  timeoutSeconds: 300,
  approvalTimeoutSeconds: 3_600,
  retentionDays: 7,
};

const origin = (conversationKey: string, messageId: string) => ({
  conversation: { platform: "slack", path: conversationKey.split(":").slice(1) },
  messageId,
  authorId: "u1",
});

describe.each(testStoreBackends("request-tracker"))("RequestTracker indexes on %s", (_name, open) => {
  const withTracker = async (test: (tracker: RequestTracker, clock: { now: number }) => Promise<void>) => {
    const { store, cleanup } = await open();
    const clock = { now: 1_000_000 };
    try {
      await test(new RequestTracker(store, { now: () => clock.now }, timeouts), clock);
    } finally {
      await store.close();
      await cleanup();
    }
  };
  const openIn = (tracker: RequestTracker, key: string, id: string) =>
    tracker.open({ conversationKey: key, origin: origin(key, id), agent: null });

  it("ensureRun starts a run once: repeated, it returns the run held, ended or not; a gone request has none", () =>
    withTracker(async (tracker, clock) => {
      const request = await openIn(tracker, "slack:T1:C1:1.1", "m1");
      const run = { triggeredBy: "task" as const, runId: "run-task-T-1", parentRunId: "run-1" };
      const started = await tracker.ensureRun(request.id, run);
      expect(started).toMatchObject({ ...run, status: "running", startedAt: 1_000_000 });
      clock.now += 10;
      expect(await tracker.ensureRun(request.id, run)).toEqual(started);
      await tracker.finishRun(request.id, run.runId, "completed");
      expect(await tracker.ensureRun(request.id, run)).toMatchObject({ status: "completed" });
      const runs = (await tracker.require(request.id)).runs.filter((held) => held.runId === run.runId);
      expect(runs).toHaveLength(1);
      expect(await tracker.ensureRun("req-gone", run)).toBeUndefined();
    }));

  it("finishIfRunning ends a running run once; an ended run keeps its ending, a gone request changes nothing", () =>
    withTracker(async (tracker, clock) => {
      const request = await openIn(tracker, "slack:T1:C1:1.1", "m1");
      const run = await tracker.startRun(request.id, { triggeredBy: "task", runId: "run-task-T-2" });
      clock.now += 10;
      const ended = await tracker.finishIfRunning(request.id, run.runId, "completed");
      expect(ended?.runs.find((held) => held.runId === run.runId)).toMatchObject({
        status: "completed",
        endedAt: clock.now,
      });
      clock.now += 10;
      expect(await tracker.finishIfRunning(request.id, run.runId, "failed", "late")).toBeUndefined();
      expect((await tracker.require(request.id)).runs.find((held) => held.runId === run.runId)).toMatchObject(
        {
          status: "completed",
          endedAt: clock.now - 10,
        },
      );
      expect(await tracker.finishIfRunning(request.id, "run-unknown", "failed")).toBeUndefined();
      expect(await tracker.finishIfRunning("req-gone", run.runId, "failed")).toBeUndefined();
    }));

  it("lists a conversation's open requests, oldest first, and none of another's", () =>
    withTracker(async (tracker, clock) => {
      const first = await openIn(tracker, "slack:T1:C1:1.1", "m1");
      clock.now += 10;
      const second = await openIn(tracker, "slack:T1:C1:1.1", "m2");
      await openIn(tracker, "slack:T1:C2:2.2", "m3");
      expect((await tracker.openIn("slack:T1:C1:1.1")).map((r) => r.id)).toEqual([first.id, second.id]);
      await tracker.setStatus(first.id, "completed");
      expect((await tracker.openIn("slack:T1:C1:1.1")).map((r) => r.id)).toEqual([second.id]);
      expect(await tracker.openIn("slack:T1:C9:9.9")).toEqual([]);
      expect(await tracker.openCount()).toBe(2);
    }));

  it("brings back only what is due: notices first, then timeouts, nothing once closed", () =>
    withTracker(async (tracker, clock) => {
      const request = await openIn(tracker, "slack:T1:C1:1.1", "m1");
      const start = clock.now;
      expect(await tracker.dueBy(start + 59_999)).toEqual([]);
      expect((await tracker.dueBy(start + 60_000)).map((r) => r.id)).toEqual([request.id]);
      await tracker.setStatus(request.id, "active", { noticeSent: true });
      expect(await tracker.dueBy(start + 299_999)).toEqual([]);
      expect((await tracker.dueBy(start + 300_000)).map((r) => r.id)).toEqual([request.id]);
      await tracker.setStatus(request.id, "timed_out");
      expect(await tracker.dueBy(start + 10_000_000)).toEqual([]);
    }));

  it("reopening a closed request puts it back in its conversation and the due index", () =>
    withTracker(async (tracker) => {
      const request = await openIn(tracker, "slack:T1:C1:1.1", "m1");
      await tracker.setStatus(request.id, "completed");
      await tracker.setStatus(request.id, "awaiting_external");
      expect((await tracker.openIn("slack:T1:C1:1.1")).map((r) => r.id)).toEqual([request.id]);
      expect(await tracker.openCount()).toBe(1);
    }));

  it("deletes closed requests older than the cut-off with their run and origin lookups, and keeps the rest", () =>
    withTracker(async (tracker, clock) => {
      const old = await openIn(tracker, "slack:T1:C1:1.1", "m1");
      const run = await tracker.startRun(old.id, { triggeredBy: "user_message" });
      await tracker.setStatus(old.id, "completed");
      clock.now += 1_000;
      const recent = await openIn(tracker, "slack:T1:C1:1.1", "m2");
      await tracker.setStatus(recent.id, "failed");
      clock.now += 10;
      const stillOpen = await openIn(tracker, "slack:T1:C1:1.1", "m3");
      expect(await tracker.deleteClosedBefore(clock.now - 10)).toBe(1);
      expect(await tracker.get(old.id)).toBeUndefined();
      expect(await tracker.byRun(run.runId)).toBeUndefined();
      expect(await tracker.byOrigin("m1")).toBeUndefined();
      expect(await tracker.get(recent.id)).toBeDefined();
      expect(await tracker.get(stillOpen.id)).toBeDefined();
      expect(await tracker.deleteClosedBefore(clock.now - 10)).toBe(0);
      // The console's list of the conversation's requests forgets the deleted one too.
      expect((await tracker.inConversation("slack:T1:C1:1.1")).map((r) => r.id)).toEqual([
        stillOpen.id,
        recent.id,
      ]);
    }));

  it("lists every kept request of a conversation, open or closed, newest first, from its index", () =>
    withTracker(async (tracker, clock) => {
      const first = await openIn(tracker, "slack:T1:C1:1.1", "m1");
      await tracker.setStatus(first.id, "completed");
      clock.now += 10;
      const second = await openIn(tracker, "slack:T1:C1:1.1", "m2");
      clock.now += 10;
      const third = await openIn(tracker, "slack:T1:C1:1.1", "m3");
      await openIn(tracker, "slack:T1:C2:2.2", "m4");
      expect((await tracker.inConversation("slack:T1:C1:1.1")).map((r) => r.id)).toEqual([
        third.id,
        second.id,
        first.id,
      ]);
      expect((await tracker.inConversation("slack:T1:C1:1.1", 2)).map((r) => r.id)).toEqual([
        third.id,
        second.id,
      ]);
      expect(await tracker.inConversation("slack:T1:C9:9.9")).toEqual([]);
    }));

  it("deletes more closed requests than one batch holds", () =>
    withTracker(async (tracker, clock) => {
      const ids: string[] = [];
      for (let index = 0; index < 520; index += 1) {
        const request = await openIn(tracker, `slack:T1:C${index}:1.1`, `m${index}`);
        await tracker.setStatus(request.id, "completed");
        ids.push(request.id);
      }
      clock.now += 1;
      expect(await tracker.deleteClosedBefore(clock.now)).toBe(520);
      expect(await tracker.get(ids[519] as string)).toBeUndefined();
    }));
});

describe.each(testStoreBackends("request-tracker-order"))("RequestTracker writes on %s", (name, open) => {
  it("a record and its indexes land in one commit where the store allows it, else the record first", async () => {
    const { store, cleanup } = await open();
    try {
      const tracker = new RequestTracker(store, { now: () => 1_000_000 }, timeouts);
      const records = store.namespace("requests");
      const write = records.set.bind(records);
      let release: () => void = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      // The record's write is held until the test has seen what else was sent meanwhile.
      vi.spyOn(records, "set").mockImplementation(async (...args) => {
        await held;
        return write(...args);
      });
      const indexWrites = vi.spyOn(store.sortedSets, "apply");
      const key = "slack:T1:C1:1.1";
      const opened = tracker.open({ conversationKey: key, origin: origin(key, "m1"), agent: null });
      await vi.waitFor(() => expect(records.set).toHaveBeenCalledTimes(1));
      // Every store sends the record before or with its indexes, never after.
      await new Promise((resolve) => setImmediate(resolve));
      expect(indexWrites).toHaveBeenCalledTimes(store.writesLandTogether ? 1 : 0);
      expect(name === "sqlite").toBe(store.writesLandTogether === true);
      release();
      const request = await opened;
      expect(indexWrites).toHaveBeenCalledTimes(1);
      expect((await tracker.openIn(key)).map((open) => open.id)).toEqual([request.id]);
    } finally {
      await store.close();
      await cleanup();
    }
  });
});
