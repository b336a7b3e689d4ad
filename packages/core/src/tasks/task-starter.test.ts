import { describe, expect, it } from "vitest";
import { RequestTracker } from "../runs/request-tracker.ts";
import { requestsConfigSchema } from "../runs/runs-config.ts";
import { silentLogger } from "../runtime/logger.ts";
import { MemoryStore } from "../store/memory/memory-store.ts";
import type { TaskRecord } from "./task-record.ts";
import { type StartRequest, type TaskRequests, TaskStarter, taskIdFor } from "./task-starter.ts";
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

  describe("and the request that started it", () => {
    /** A request opened by a message, its tracker, and the task hooks the CLI wires to it. */
    async function trackedStart() {
      const store = new MemoryStore();
      const time = { now: 1_000 };
      const clock = { now: () => time.now };
      const tracker = new RequestTracker(store, clock, requestsConfigSchema.parse({}));
      const opened = await tracker.openWithRun(
        {
          conversationKey: request.key,
          origin: {
            conversation: { platform: "slack", path: ["T", "C", "1"] },
            messageId: "m1",
            authorId: "U1",
          },
          agent: null,
        },
        "user_message",
      );
      const requests: TaskRequests = {
        originOf: async () => ({ messageId: "m1", authorId: "U1" }),
        addRun: async (requestId, run) => {
          await tracker.ensureRun(requestId, { triggeredBy: "task", ...run });
        },
        // As the CLI wires it: a run that ended already keeps its ending.
        finishRun: async (record) => {
          if (record.requestId)
            await tracker.finishIfRunning(
              record.requestId,
              record.runId,
              record.status === "completed" ? "completed" : "failed",
            );
        },
      };
      const tasks = new TaskStore(store, { retentionMs: 86_400_000 });
      const starter = (hooks: TaskRequests) =>
        new TaskStarter({
          store: tasks,
          config: tasksConfigSchema.parse({}),
          agentTools: () => [],
          requests: hooks,
          clock,
          logger: silentLogger,
          started: () => {},
        });
      const start = { ...request, requestId: opened.request.id, runId: opened.run.runId };
      const taskRuns = async () =>
        (await tracker.require(opened.request.id)).runs.filter((run) => run.triggeredBy === "task");
      return { store, tasks, requests, starter, start, taskRuns, time };
    }

    it("a start_task call run again after a crash between its task and the request's run adds the run, once", async () => {
      const { store, requests, starter, start, taskRuns } = await trackedStart();
      // The first attempt wrote the task and died before the request heard of it.
      const died: TaskRequests = {
        ...requests,
        addRun: async () => {
          throw new Error("killed");
        },
      };
      await expect(starter(died).start(start)).rejects.toThrow("killed");
      expect(await taskRuns()).toEqual([]);

      await starter(requests).start(start);
      await starter(requests).start(start);
      const id = taskIdFor(start);
      expect(await taskRuns()).toEqual([
        expect.objectContaining({ runId: `run-task-${id}`, parentRunId: start.runId, status: "running" }),
      ]);
      await store.close();
    });

    it("the task ended before the call ran again: its run is added ended, not left running", async () => {
      const { store, tasks, requests, starter, start, taskRuns, time } = await trackedStart();
      const died: TaskRequests = {
        ...requests,
        addRun: async () => {
          throw new Error("killed");
        },
      };
      await expect(starter(died).start(start)).rejects.toThrow("killed");
      const task = await tasks.get(taskIdFor(start));
      if (!task) throw new Error("the first attempt wrote no task");
      await tasks.save({ ...task, status: "completed", updatedAt: 2_000 }, task);

      await starter(requests).start(start);
      expect(await taskRuns()).toEqual([expect.objectContaining({ status: "completed" })]);
      const [ended] = await taskRuns();
      // Repeated once more, the run keeps the ending it has.
      time.now += 1_000;
      await starter(requests).start(start);
      expect(await taskRuns()).toEqual([ended]);
      await store.close();
    });
  });
});
