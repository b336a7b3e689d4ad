/**
 * Background tasks: what the engine adds to one task step (store, checkpoint, lease, steps log —
 * everything but the model), and whether a thread stays as quick for follow-ups while its task works.
 */
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import {
  createTasks,
  encodeConversationKey,
  openCheckpointer,
  openStore,
  silentLogger,
  systemClock,
  type Tasks,
} from "@switchboard/core";
import { tasksConfigSchema } from "@switchboard/core/config";
import { z } from "zod";
import { atMost, type Figure } from "./support/figures.ts";
import { ScriptedChatModel } from "./support/scripted-model.ts";
import { percentile, round } from "./support/stats.ts";
import { openStack } from "./support/switchboard-stack.ts";
import { sqliteUrl, tempDir } from "./support/temp-dir.ts";
import { message200 } from "./support/text.ts";
import { conversationOf } from "./support/timing-adapter.ts";

const STEPS_PER_TASK = 200;
const FOLLOW_UPS_PER_ROUND = 40;
const ROUNDS = 5;
/** How long a task step's model takes in the follow-up rounds: the task keeps working meanwhile. */
const TASK_MODEL_MS = 20;

export interface TasksBenchOptions {
  readonly timeBoxMs: number;
}

const work = tool(async ({ topic }: { topic: string }) => `notes on ${topic}`, {
  name: "work",
  description: "does a piece of work",
  schema: z.object({ topic: z.string() }),
});

/** Every step calls `work` until `steps`, then answers. */
function stepScript(steps: number) {
  return (messages: BaseMessage[]) => {
    const done = messages.filter((message) => AIMessage.isInstance(message)).length;
    if (done + 1 >= steps) return new AIMessage("the task's result");
    return new AIMessage({
      content: "",
      tool_calls: [{ id: `w-${done}`, name: "work", args: { topic: `part ${done}` }, type: "tool_call" }],
    });
  };
}

async function startTask(tasks: Tasks, key: string, callId: string): Promise<string> {
  const [start] = tasks.toolsFor("supervisor");
  if (!start) throw new Error("bench: tasks are off");
  const answer = String(
    await start.invoke(
      { title: "bench task", instructions: "work through every part", tools: ["work"] },
      {
        configurable: {
          thread_id: key,
          user_id: "bench-user",
          run_id: `bench-run-${callId}`,
          tool_call_id: callId,
        },
      },
    ),
  );
  const id = /T-[A-Z0-9]{6}/.exec(answer)?.[0];
  if (!id) throw new Error(`bench: no task started (${answer})`);
  return id;
}

/** Milliseconds of one task step that are not the model's: sequential steps on SQLite, an instant model. */
async function stepOverhead(timeBoxMs: number): Promise<{ samples: number[] }> {
  const dir = tempDir("task-steps");
  const url = sqliteUrl(dir.path);
  const store = await openStore(url, { logger: silentLogger });
  const checkpoints = await openCheckpointer(url, { logger: silentLogger });
  const model = new ScriptedChatModel(stepScript(STEPS_PER_TASK + 1));
  const tasks = createTasks({
    store,
    checkpointer: checkpoints.saver,
    config: tasksConfigSchema.parse({ maxIterations: 1_000, maxRunningPerConversation: 100 }),
    agents: [{ name: "supervisor", model, tools: ["work"] }],
    toolOf: (name) => (name === "work" ? work : undefined),
    appendToHistory: async () => {},
    admins: [],
    leaseTtlMs: 30_000,
    clock: systemClock,
    logger: silentLogger,
  });
  tasks.bind({ enqueueContinuation: async () => true });
  const samples: number[] = [];
  try {
    const deadline = performance.now() + timeBoxMs;
    for (let task = 0; performance.now() < deadline; task++) {
      const id = await startTask(tasks, `bench:task-${task}`, `c${task}`);
      for (let step = 0; step < STEPS_PER_TASK && performance.now() < deadline; step++) {
        const modelBefore = model.stats.busyMs;
        const started = performance.now();
        const outcome = await tasks.runStep(id);
        const ms = performance.now() - started - (model.stats.busyMs - modelBefore);
        // The first steps of each task warm its thread up; the last one ends it.
        if (step >= 5 && outcome === "stepped") samples.push(ms);
      }
    }
  } finally {
    await tasks.stop();
    await checkpoints.close();
    await store.close();
    dir.remove();
  }
  return { samples };
}

/**
 * Follow-ups in one thread, one at a time, accept → post: rounds without a task, and rounds while a
 * task of the same thread takes a step every ~20 ms, interleaved round by round.
 */
async function followUps(): Promise<{ idle: number[]; busy: number[]; steps: number }> {
  const dir = tempDir("task-follow-ups");
  const answers = new ScriptedChatModel(() => new AIMessage(message200("answer", 1)));
  const taskModel = new ScriptedChatModel(stepScript(1_000_000), { latencyMs: TASK_MODEL_MS });
  let tasks: Tasks | undefined;
  const stack = await openStack({
    url: sqliteUrl(dir.path),
    models: { main: answers },
    extend: (store, checkpointer) => {
      const built = createTasks({
        store,
        checkpointer,
        config: tasksConfigSchema.parse({ maxIterations: 1_000, wallTimeMinutes: 600 }),
        agents: [{ name: "supervisor", model: taskModel, tools: ["work"] }],
        toolOf: (name) => (name === "work" ? work : undefined),
        appendToHistory: async () => {},
        admins: ["bench-user"],
        leaseTtlMs: 30_000,
        clock: systemClock,
        logger: silentLogger,
        pollMs: 50,
      });
      tasks = built;
      return {
        builtInTools: (agent) => built.toolsFor(agent),
        commands: built.commands,
        bind: (engine) => {
          built.bind(engine);
          built.startDriving();
        },
        close: () => built.stop(),
      };
    },
  });
  const idle: number[] = [];
  const busy: number[] = [];
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (let index = 0; index < FOLLOW_UPS_PER_ROUND; index++)
        idle.push(await stack.adapter.ask(`idle-${round}`, message200("question", index)));
      const place = `busy-${round}`;
      await stack.adapter.ask(place, message200("question", 0));
      const id = await startTask(tasks as Tasks, encodeConversationKey(conversationOf(place)), `f${round}`);
      // The task is under way before the follow-ups start.
      while (((await tasks?.store.get(id))?.iteration ?? 0) < 3)
        await new Promise((resolve) => setTimeout(resolve, 5));
      for (let index = 1; index <= FOLLOW_UPS_PER_ROUND; index++)
        busy.push(await stack.adapter.ask(place, message200("question", index)));
      await tasks?.controls.control(id, "cancel", { id: "bench-user" });
    }
  } finally {
    await stack.close();
    dir.remove();
  }
  return { idle, busy, steps: taskModel.stats.calls };
}

export async function measureTasks(options: TasksBenchOptions): Promise<Figure[]> {
  const { samples } = await stepOverhead(options.timeBoxMs);
  const { idle, busy, steps } = await followUps();
  const idleP50 = round(percentile(idle, 50), 3);
  const busyP50 = round(percentile(busy, 50), 3);
  const ratio = round(busyP50 / idleP50, 3);
  return [
    {
      key: "taskStepOverheadMs",
      value: round(percentile(samples, 50), 3),
      unit: "ms",
      note: `p50 of ${samples.length} task steps on SQLite with an instant model (the model's own time subtracted): lease, controls, checkpoint, steps log and record; p99 ${round(percentile(samples, 99), 3)} ms`,
    },
    {
      key: "followUpP50WhileTaskRunningMs",
      value: busyP50,
      unit: "ms",
      baseline: { label: "the same follow-ups with no task running (p50)", value: idleP50 },
      target: { text: "≤ 1.2 × without a task", met: atMost(ratio, 1.2) },
      note: `${busy.length} follow-ups while the thread's task took a step every ~${TASK_MODEL_MS} ms (${steps} task steps in all) vs ${idle.length} without, ${ROUNDS} interleaved rounds, SQLite, instant answers; ratio ${ratio}`,
    },
  ];
}
