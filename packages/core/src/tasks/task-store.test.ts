import { describe, expect, it } from "vitest";
import { MemoryStore } from "../store/memory/memory-store.ts";
import type { TaskRecord } from "./task-record.ts";
import { TaskStore } from "./task-store.ts";

const HOME = "slack:T:C:1";

const queued: TaskRecord = {
  id: "T-ABCDEF",
  title: "t",
  instructions: "i",
  tools: [],
  agent: "supervisor",
  home: { key: HOME, conversation: { platform: "slack", path: ["T", "C", "1"] }, messageId: "m" },
  requesterId: "U1",
  runId: "run-task-T-ABCDEF",
  status: "queued",
  iteration: 0,
  maxIterations: 10,
  wallTimeMs: 600_000,
  createdAt: 1_000,
  updatedAt: 1_000,
  activeMs: 0,
  pendingGuidance: [],
  consecutiveWaits: 0,
  inputTokens: 0,
  outputTokens: 0,
  costUsd: 0,
  reported: false,
};

describe("TaskStore.create", () => {
  it("a task whose process died between its record and its index entries is listed and due once its call runs again", async () => {
    const store = new MemoryStore();
    const tasks = new TaskStore(store, { retentionMs: 86_400_000 });
    // What the crash left: the record, without the entries that make it due and list it in its thread.
    await store.namespace<TaskRecord>("tasks").set(queued.id, queued);
    expect(await tasks.dueBy(10_000, 10)).toEqual([]);

    const found = await tasks.create({ ...queued, createdAt: 5_000, updatedAt: 5_000 });
    expect(found).toEqual(queued);
    expect((await tasks.dueBy(10_000, 10)).map((task) => task.id)).toEqual([queued.id]);
    expect((await tasks.inHome(HOME)).map((task) => task.id)).toEqual([queued.id]);
    await store.close();
  });

  it("a task created once is listed once, however often its call runs again", async () => {
    const store = new MemoryStore();
    const tasks = new TaskStore(store, { retentionMs: 86_400_000 });
    await tasks.create(queued);
    await tasks.create(queued);
    expect((await tasks.dueBy(10_000, 10)).map((task) => task.id)).toEqual([queued.id]);
    expect((await tasks.inHome(HOME)).map((task) => task.id)).toEqual([queued.id]);
    await store.close();
  });
});
