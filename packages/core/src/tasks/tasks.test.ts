import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { type StructuredToolInterface, tool } from "@langchain/core/tools";
import { MemorySaver } from "@langchain/langgraph";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import type { PostedMessage } from "../conversation/messages.ts";
import { Deliverer } from "../delivery/deliverer.ts";
import { ConversationIndex } from "../engine/conversation-index.ts";
import type { Continuation } from "../engine/responder.ts";
import { silentLogger } from "../runtime/logger.ts";
import type { TokenCounts } from "../steps/run-step.ts";
import { openStore } from "../store/open-store.ts";
import type { Store } from "../store/types.ts";
import { UNKNOWN_OUTCOME } from "../team/tool-calls.ts";
import { RecordingAdapter } from "../testing/recording-adapter.ts";
import { createTasks, type Tasks } from "./create-tasks.ts";
import { progressText } from "./task-commands.ts";
import { type TasksConfig, tasksConfigSchema } from "./tasks-config.ts";

const HOME = "slack:T1:C1:1700000000.000100";

interface World {
  readonly tasks: Tasks;
  readonly store: Store;
  readonly queued: Continuation[];
  readonly history: { key: string; id: string; text: string }[];
  readonly clock: { now: () => number; advance(ms: number): void };
  readonly model: ReturnType<typeof fakeModel>;
  readonly calls: Record<string, number>;
  start(
    text?: Partial<{ title: string; instructions: string; tools: string[]; userId: string; callId: string }>,
  ): Promise<string>;
}

const opened: Store[] = [];
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
});

async function world(
  options: {
    config?: Partial<TasksConfig>;
    tools?: StructuredToolInterface[];
    leaseTtlMs?: number;
    attempts?: number;
    deliverer?: Deliverer;
    costOf?: (agent: string, tokens: TokenCounts) => number | undefined;
  } = {},
): Promise<World> {
  const store = await openStore("memory:", { logger: silentLogger });
  opened.push(store);
  const calls: Record<string, number> = {};
  const counting = (name: string) =>
    tool(
      async ({ query }: { query: string }) => {
        calls[name] = (calls[name] ?? 0) + 1;
        return `${name} found 3 results for ${query}`;
      },
      { name, description: name, schema: z.object({ query: z.string() }) },
    );
  const registry = new Map(
    [...[counting("search"), counting("fetch_page")], ...(options.tools ?? [])].map((t) => [t.name, t]),
  );
  const model = fakeModel();
  const queued: Continuation[] = [];
  const history: World["history"] = [];
  let now = 1_700_000_000_000;
  const clock = {
    now: () => now,
    advance: (ms: number) => {
      now += ms;
    },
  };
  const config = tasksConfigSchema.parse({ ...options.config });
  const tasks = createTasks({
    store,
    checkpointer: new MemorySaver(),
    config,
    agents: [{ name: "research", model, tools: [...registry.keys()] }],
    toolOf: (name) => registry.get(name),
    appendToHistory: async (key, message) => void history.push({ key, id: message.id, text: message.text }),
    admins: ["admin"],
    modelCalls: { maxAttempts: options.attempts ?? 1, attemptTimeoutMs: 30_000, firstTokenTimeoutMs: 30_000 },
    leaseTtlMs: options.leaseTtlMs ?? 30_000,
    ...(options.costOf ? { costOf: options.costOf } : {}),
    clock,
    logger: silentLogger,
  });
  const seenIds = new Set<string>();
  tasks.bind({
    ...(options.deliverer ? { deliverer: options.deliverer } : {}),
    async enqueueContinuation(_key, continuation) {
      if (continuation.id && seenIds.has(continuation.id)) return false;
      if (continuation.id) seenIds.add(continuation.id);
      queued.push(continuation);
      return true;
    },
  });
  const [startTool] = tasks.toolsFor("research");
  if (!startTool) throw new Error("start_task missing");
  return {
    tasks,
    store,
    queued,
    history,
    clock,
    model,
    calls,
    async start(input = {}) {
      const answer: unknown = await startTool.invoke(
        {
          title: input.title ?? "Compare flights to Lisbon",
          instructions: input.instructions ?? "Find the three cheapest flights and compare them.",
          ...(input.tools ? { tools: input.tools } : {}),
        },
        {
          configurable: {
            thread_id: HOME,
            user_id: input.userId ?? "U-alice",
            run_id: "run-1",
            tool_call_id: input.callId ?? "call-1",
            agent: "research",
          },
        },
      );
      return String(answer);
    },
  };
}

const taskIdIn = (sentence: string) => /T-[A-Z0-9]{6}/.exec(sentence)?.[0] ?? "";
const search = (query: string, id = `c-${query}`) => ({ name: "search", args: { query }, id });

describe("background tasks", () => {
  it("takes steps until the model answers, logs each step and queues its ending once", async () => {
    const w = await world();
    w.model
      .respondWithTools([search("lisbon")])
      .respondWithTools([search("prices")])
      .respond(new AIMessage("TAP 120 EUR is cheapest."));
    const started = await w.start();
    const id = taskIdIn(started);
    expect(started).toMatch(/^Started task T-/);
    expect(await w.tasks.runStep(id)).toBe("stepped");
    expect(await w.tasks.runStep(id)).toBe("stepped");
    expect(await w.tasks.runStep(id)).toBe("idle");
    const record = await w.tasks.store.get(id);
    expect(record).toMatchObject({
      status: "completed",
      iteration: 3,
      result: "TAP 120 EUR is cheapest.",
      reported: true,
    });
    const steps = await w.tasks.store.steps(record!);
    expect(steps.map((s) => [s.iteration, s.stepToken, s.nextStepToken])).toEqual([
      [1, `${id}:1`, `${id}:2`],
      [2, `${id}:2`, `${id}:3`],
      [3, `${id}:3`, null],
    ]);
    expect(steps[0]?.toolCalls[0]).toMatchObject({ name: "search", status: "success" });
    expect(w.calls.search).toBe(2);
    expect(w.queued).toHaveLength(1);
    expect(w.queued[0]).toMatchObject({ id: `task:${id}:ended`, type: "task_ended", data: { taskId: id } });
    // The first step heard the instructions, in the task's own thread.
    const firstCall = w.model.calls[0]?.messages as BaseMessage[];
    expect(
      firstCall.some((m) => HumanMessage.isInstance(m) && String(m.content).includes("three cheapest")),
    ).toBe(true);
    // Running it again after it ended does nothing and queues nothing more.
    expect(await w.tasks.runStep(id)).toBe("idle");
    expect(w.queued).toHaveLength(1);
  });

  it("counts steps on a model with no price as an unknown cost, never as free", async () => {
    const w = await world({ costOf: () => undefined });
    w.model.respondWithTools([search("lisbon")]).respond(new AIMessage("TAP is cheapest."));
    const id = taskIdIn(await w.start());
    expect(await w.tasks.runStep(id)).toBe("stepped");
    expect(await w.tasks.runStep(id)).toBe("idle");
    const record = await w.tasks.store.get(id);
    expect(record).toMatchObject({ status: "completed", costUsd: 0, unpricedSteps: 2 });
    const steps = await w.tasks.store.steps(record!);
    expect(steps.map((step) => step.unpriced)).toEqual([true, true]);
    expect(progressText(record!, steps, w.clock.now())).toMatch(/tokens, cost unknown\./);

    const priced = await world({ costOf: () => 0.01 });
    priced.model.respond(new AIMessage("Done."));
    const pricedId = taskIdIn(await priced.start());
    await priced.tasks.runStep(pricedId);
    const pricedRecord = await priced.tasks.store.get(pricedId);
    expect(pricedRecord?.unpricedSteps).toBeUndefined();
    expect(progressText(pricedRecord!, [], priced.clock.now())).toMatch(/tokens, \$0\.0100\./);
  });

  it("starting the same tool call twice (a re-run after a crash) finds the same task", async () => {
    const w = await world();
    const first = taskIdIn(await w.start());
    const again = taskIdIn(await w.start());
    expect(again).toBe(first);
    expect(await w.tasks.store.inHome(HOME)).toHaveLength(1);
  });

  it("pauses, steers and resumes: a paused task takes no step; guidance reaches the next one", async () => {
    const w = await world();
    w.model
      .respondWithTools([search("lisbon")])
      .respondWithTools([search("direct")])
      .respond(new AIMessage("Only direct: TAP."));
    const id = taskIdIn(await w.start());
    expect(await w.tasks.runStep(id)).toBe("stepped");
    expect((await w.tasks.controls.control(id, "pause", { id: "U-alice" })).sentence).toMatch(/^Paused task/);
    expect(await w.tasks.runStep(id)).toBe("idle");
    expect(w.model.calls).toHaveLength(1);
    expect(
      (await w.tasks.controls.control(id, "steer", { id: "U-alice" }, "only direct flights")).sentence,
    ).toMatch(/next step/);
    expect((await w.tasks.controls.control(id, "resume", { id: "U-alice" })).sentence).toMatch(
      /^Resumed task/,
    );
    expect(await w.tasks.runStep(id)).toBe("stepped");
    const second = w.model.calls[1]?.messages as BaseMessage[];
    expect(second.at(-1)?.content).toBe("Guidance from U-alice: only direct flights");
    expect(await w.tasks.runStep(id)).toBe("idle");
    const record = await w.tasks.store.get(id);
    expect(record?.status).toBe("completed");
    const steps = await w.tasks.store.steps(record!);
    expect(steps[1]?.guidance).toEqual(["Guidance from U-alice: only direct flights"]);
  });

  it("refuses controls from other people, unknown ids and those that do not fit the status", async () => {
    const w = await world();
    const id = taskIdIn(await w.start());
    expect((await w.tasks.controls.control(id, "pause", { id: "U-bob" })).sentence).toBe(
      `Only the person who asked for task ${id} or an admin can pause it.`,
    );
    expect((await w.tasks.controls.control(id, "resume", { id: "U-alice" })).sentence).toMatch(
      /is not paused/,
    );
    expect((await w.tasks.controls.control("T-NOPE00", "cancel", { id: "U-alice" })).sentence).toMatch(
      /There is no task T-NOPE00/,
    );
    expect((await w.tasks.controls.control(id.toLowerCase(), "cancel", { id: "admin" })).sentence).toMatch(
      /^Cancelled task/,
    );
    expect((await w.tasks.controls.control(id, "cancel", { id: "admin" })).sentence).toMatch(
      /already been cancelled/,
    );
    expect((await w.tasks.store.get(id))?.status).toBe("cancelled");
  });

  it("a cancel while a step runs ends that step within one lease heartbeat", async () => {
    let release: (() => void) | undefined;
    const started = new Promise<void>((resolve) => {
      release = resolve;
    });
    const hanging = tool(
      async (_input, config) =>
        new Promise<string>((_resolve, reject) => {
          release?.();
          config.signal?.addEventListener("abort", () => reject(config.signal?.reason));
        }),
      { name: "slow", description: "slow", schema: z.object({}) },
    );
    const w = await world({ tools: [hanging], leaseTtlMs: 60 });
    w.model.respondWithTools([{ name: "slow", args: {}, id: "s1" }]);
    const id = taskIdIn(await w.start());
    const step = w.tasks.runStep(id);
    await started;
    expect((await w.tasks.controls.control(id, "cancel", { id: "U-alice" })).sentence).toMatch(
      /^Cancelling task .*current step stops now/,
    );
    expect(await step).toBe("idle");
    const record = await w.tasks.store.get(id);
    expect(record).toMatchObject({ status: "cancelled", changedBy: "U-alice", reported: true });
    expect(w.queued).toHaveLength(1);
  });

  it("after a crash between checkpoint and record, finishes the step's bookkeeping without calling the model again", async () => {
    const w = await world();
    w.model.respondWithTools([search("lisbon")]).respond(new AIMessage("done"));
    const id = taskIdIn(await w.start());
    const before = await w.tasks.store.get(id);
    expect(await w.tasks.runStep(id)).toBe("stepped");
    // The crash: the record as it was when step 1 began (marked in flight); the checkpoint has it.
    const after = await w.tasks.store.get(id);
    await w.tasks.store.save({ ...before!, status: "running", stepInFlight: 1 }, after);
    expect(await w.tasks.runStep(id)).toBe("idle");
    expect(w.model.calls).toHaveLength(2);
    expect(w.calls.search).toBe(1);
    const record = await w.tasks.store.get(id);
    expect(record).toMatchObject({ status: "completed", iteration: 2 });
    expect((await w.tasks.store.steps(record!)).map((s) => s.iteration)).toEqual([1, 2]);
  });

  it("a step cut short mid-tool never runs that tool twice: the next attempt hears the outcome is unknown", async () => {
    let calls = 0;
    const payment = tool(
      async (_input, config) => {
        calls += 1;
        return new Promise<string>((_resolve, reject) =>
          config.signal?.addEventListener("abort", () => reject(config.signal?.reason)),
        );
      },
      { name: "pay", description: "pay", schema: z.object({}) },
    );
    const w = await world({ tools: [payment] });
    w.model
      .respondWithTools([{ name: "pay", args: {}, id: "p1" }])
      .respond(new AIMessage("I could not confirm the payment."));
    const id = taskIdIn(await w.start());
    const shutdown = new AbortController();
    const step = w.tasks.runStep(id, shutdown.signal);
    while (calls === 0) await new Promise((resolve) => setImmediate(resolve));
    shutdown.abort(new Error("shutting down"));
    expect(await step).toBe("idle");
    expect((await w.tasks.store.get(id))?.status).toBe("running");
    // The next start: the journal replays the model's reply; the payment is not made again.
    expect(await w.tasks.runStep(id)).toBe("stepped");
    expect(calls).toBe(1);
    expect(w.model.calls).toHaveLength(1);
    const step1 = (await w.tasks.store.steps((await w.tasks.store.get(id))!))[0];
    expect(step1?.toolCalls[0]).toMatchObject({ name: "pay", status: "error", result: UNKNOWN_OUTCOME });
    expect(await w.tasks.runStep(id)).toBe("idle");
    expect((await w.tasks.store.get(id))?.status).toBe("completed");
  });

  it("stops at its step limit and says so", async () => {
    const w = await world({ config: { maxIterations: 2 } });
    w.model
      .respondWithTools([search("a")])
      .respondWithTools([search("b")])
      .respondWithTools([search("c")]);
    const id = taskIdIn(await w.start());
    expect(await w.tasks.runStep(id)).toBe("stepped");
    expect(await w.tasks.runStep(id)).toBe("stepped");
    expect(await w.tasks.runStep(id)).toBe("idle");
    const record = await w.tasks.store.get(id);
    expect(record).toMatchObject({ status: "failed", iteration: 2 });
    expect(record?.lastError).toBe("it reached its step limit (2 steps) without finishing");
    expect(w.model.calls).toHaveLength(2);
  });

  it("refuses what it cannot start with a sentence the agent can pass on", async () => {
    const w = await world({ config: { maxRunningPerConversation: 1, maxInstructionChars: 100 } });
    expect(await w.start({ instructions: "x".repeat(101) })).toBe(
      "Not started: the instructions are 101 characters long; tasks take at most 100. Write them shorter.",
    );
    expect(await w.start({ tools: ["search", "send_email"] })).toBe(
      "Not started: the tool send_email is not available to tasks (available: search, fetch_page).",
    );
    const first = taskIdIn(await w.start({ callId: "c1" }));
    expect(await w.start({ callId: "c2", title: "Second" })).toBe(
      `Not started: this thread already has 1 unfinished task (the limit is 1): ${first} "Compare flights to Lisbon" (queued). Tell the user they can wait for one to finish or cancel one with /task cancel <id>.`,
    );
  });

  it("a model that stays unavailable makes the task wait and try again later", async () => {
    const w = await world();
    const unavailable = Object.assign(new Error("Service Unavailable"), { status: 503 });
    w.model.respond(unavailable).respond(new AIMessage("ok"));
    const id = taskIdIn(await w.start());
    expect(await w.tasks.runStep(id)).toBe("idle");
    const waiting = await w.tasks.store.get(id);
    expect(waiting?.status).toBe("waiting");
    expect(waiting?.retryAt).toBe(w.clock.now() + 60_000);
    expect(await w.tasks.store.dueBy(w.clock.now(), 10)).toHaveLength(0);
    w.clock.advance(60_000);
    expect((await w.tasks.store.dueBy(w.clock.now(), 10)).map((r) => r.id)).toEqual([id]);
    expect(await w.tasks.runStep(id)).toBe("idle");
    expect((await w.tasks.store.get(id))?.status).toBe("completed");
  });

  it("the health round fails a stuck task, expires a long pause and queues endings a crash left unqueued", async () => {
    const w = await world({ config: { pausedExpiryHours: 1 } });
    const paused = taskIdIn(await w.start({ callId: "a" }));
    await w.tasks.controls.control(paused, "pause", { id: "U-alice" });
    w.clock.advance(3_600_001);
    const report = await w.tasks.healthRound();
    expect(report.expired).toBe(1);
    expect(await w.tasks.store.get(paused)).toMatchObject({
      status: "cancelled",
      lastError: "it stayed paused for more than 1 hour",
      reported: true,
    });
    expect(w.queued.map((c) => c.data?.taskId)).toEqual([paused]);
  });

  it("the health round fails a task a live process holds without progress, and queues an ending a crash left unqueued", async () => {
    const w = await world({ config: { maxIterations: 10, wallTimeMinutes: 10 } });
    w.model.respondWithTools([search("a")]);
    const id = taskIdIn(await w.start());
    expect(await w.tasks.runStep(id)).toBe("stepped");
    // Another process holds the task's lease and makes no progress for longer than 2 × 10 min / 10.
    const lease = await w.store.atomic.acquireLock(`task-lease:${id}`, 3_600_000);
    w.clock.advance(2 * 60_000 + 1);
    expect((await w.tasks.healthRound()).stuck).toBe(1);
    // Its holder's heartbeat hears the control; here the lease is let go and the control applied.
    await w.store.atomic.releaseLock(`task-lease:${id}`, lease ?? "");
    expect(await w.tasks.runStep(id)).toBe("idle");
    expect(await w.tasks.store.get(id)).toMatchObject({
      status: "failed",
      lastError: "it made no progress for 2 minutes (stuck)",
    });
    expect(w.queued.map((c) => c.data?.taskId)).toEqual([id]);

    // A task that ended while its ending was never queued (a crash between the two): the round queues it.
    const other = taskIdIn(await w.start({ callId: "other" }));
    const record = await w.tasks.store.get(other);
    await w.tasks.store.save(
      { ...record!, status: "completed", result: "r", finishedAt: w.clock.now(), reported: false },
      record,
    );
    expect((await w.tasks.healthRound()).reported).toBe(1);
    expect(w.queued.map((c) => c.data?.taskId)).toEqual([id, other]);
    expect((await w.tasks.store.get(other))?.reported).toBe(true);
  });

  it("milestones: one progress message in the thread, edited in place, never one per step", async () => {
    const slack = new EditingAdapter({ platform: "slack" });
    const store = await openStore("memory:", { logger: silentLogger });
    opened.push(store);
    const deliverer = new Deliverer([slack], new ConversationIndex(store));
    const w = await world({ config: { progress: "milestones" }, deliverer });
    w.model
      .respondWithTools([search("a")])
      .respondWithTools([search("b")])
      .respondWithTools([search("c")])
      .respond(new AIMessage("done"));
    const id = taskIdIn(await w.start());
    for (let step = 0; step < 4; step++) {
      await w.tasks.runStep(id);
      w.clock.advance(6_000);
      // Progress is shown beside the task's work, not awaited by it.
      await vi.waitFor(() =>
        expect(slack.posts.length + slack.edits.length).toBeGreaterThanOrEqual(step + 1),
      );
    }
    await vi.waitFor(() => expect(slack.edits).toHaveLength(4));
    expect(slack.posts).toHaveLength(1);
    expect(slack.posts[0]?.text).toContain(
      `Task ${id} · Compare flights to Lisbon: step 1 of at most 50 (used search)`,
    );
    expect(slack.edits.map((edit) => edit.text)).toEqual([
      expect.stringContaining("step 2 of at most 50"),
      expect.stringContaining("step 3 of at most 50"),
      expect.stringContaining("step 4 of at most 50 (writing)"),
      `_Task ${id} · Compare flights to Lisbon: completed after 4 steps._`,
    ]);
  });
});

class EditingAdapter extends RecordingAdapter {
  readonly edits: { id: string; text: string }[] = [];
  async edit(posted: PostedMessage, text: string): Promise<void> {
    this.edits.push({ id: posted.id, text });
  }
}
