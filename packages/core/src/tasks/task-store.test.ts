import { describe, expect, it } from "vitest";
import { MemoryStore } from "../store/memory/memory-store.ts";
import type { TaskRecord } from "./task-record.ts";
import { TaskStore } from "./task-store.ts";
import { queuedTask } from "./task-test-support.ts";

const HOME = queuedTask().home.key;

const queued = queuedTask({ agent: "supervisor", createdAt: 1_000, updatedAt: 1_000 });

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
