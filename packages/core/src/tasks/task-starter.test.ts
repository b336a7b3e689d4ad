import { describe, expect, it } from "vitest";
import { silentLogger } from "../runtime/logger.ts";
import { MemoryStore } from "../store/memory/memory-store.ts";
import type { TaskRecord } from "./task-record.ts";
import { type StartRequest, TaskStarter, taskIdFor } from "./task-starter.ts";
import { TaskStore } from "./task-store.ts";
import { tasksConfigSchema } from "./tasks-config.ts";

const request: StartRequest = {
  title: "Compare flights",
  instructions: "Find the three cheapest flights to Lisbon.",
  agent: "supervisor",
  key: "slack:T:C:1",
  userId: "U1",
  runId: "run-1",
  toolCallId: "call-1",
};

describe("TaskStarter", () => {
  it("a start_task call run again after a crash before its task was announced announces it", async () => {
    const store = new MemoryStore();
    const tasks = new TaskStore(store, { retentionMs: 86_400_000 });
    const announced: TaskRecord[] = [];
    const starter = (started: (record: TaskRecord) => void) =>
      new TaskStarter({
        store: tasks,
        config: tasksConfigSchema.parse({}),
        agentTools: () => [],
        clock: { now: () => 1_000 },
        logger: silentLogger,
        started,
      });
    // The first attempt wrote the task and died before announcing it.
    await starter(() => {}).start(request);
    expect(announced).toEqual([]);

    const sentence = await starter((record) => announced.push(record)).start(request);
    const id = taskIdFor(request);
    expect(sentence).toContain(id);
    expect(announced.map((record) => record.id)).toEqual([id]);
    expect((await tasks.dueBy(10_000, 10)).map((task) => task.id)).toEqual([id]);
    await store.close();
  });
});
