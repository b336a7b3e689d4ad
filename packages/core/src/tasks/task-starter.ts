import { createHash } from "node:crypto";
import type { RunnableConfig } from "@langchain/core/runnables";
import { type StructuredToolInterface, tool } from "@langchain/core/tools";
import { z } from "zod";
import { decodeConversationKey } from "../conversation/ref.ts";
import type { Clock } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";
import { COMMAND_PREFIX_KEY } from "../team/limits.ts";
import type { TaskRecord } from "./task-record.ts";
import { isTerminal, notStarted } from "./task-record.ts";
import type { TaskStore } from "./task-store.ts";
import type { TasksConfig } from "./tasks-config.ts";

export const START_TASK = "start_task";
const MAX_TITLE_CHARS = 120;

/** Where a task's run is recorded: the request the starting message opened (request tracking). */
export interface TaskRequests {
  /** The message and author that opened the request, or undefined when it is not known. */
  originOf(requestId: string): Promise<{ messageId: string; authorId: string } | undefined>;
  /**
   * Adds the task's run to the request (`triggeredBy: task`, under the run that started it), unless
   * the request holds it already: the same start repeated after a crash adds it once.
   */
  addRun(requestId: string, run: { runId: string; parentRunId?: string }): Promise<void>;
  /** Ends the task's run in its request with the task's outcome; nothing when the request no longer holds it running. */
  finishRun(record: TaskRecord): Promise<void>;
}

export interface TaskStarterOptions {
  readonly store: TaskStore;
  readonly config: TasksConfig;
  /** The tools an agent has by name in the team (its `tools:` list). */
  readonly agentTools: (agent: string) => readonly string[];
  readonly requests?: TaskRequests;
  readonly clock: Clock;
  readonly logger: Logger;
  /** A new task is due: its driver takes it. */
  readonly started: (record: TaskRecord) => void;
}

/** Tools a task never gets: it cannot start tasks, hand the thread over, or talk to people. */
const NEVER_IN_TASKS = /^(start_task|transfer_to_.+|send_message)$/;

/** What a turn's tool call asks for. */
export interface StartRequest {
  readonly title: string;
  readonly instructions: string;
  readonly tools?: readonly string[];
  readonly agent: string;
  readonly key: string;
  readonly userId: string;
  readonly requestId?: string;
  readonly runId?: string;
  readonly toolCallId?: string;
  /** The command prefix that works on the thread's platform (texts name `/task`). */
  readonly prefix?: string;
}

/**
 * Starts tasks for agents: checks what the agent asked against the limits (each refusal is a
 * sentence the agent reads and can pass on), writes the task record and adds the task's run to
 * the request that started it. The task's id derives from the run and tool call, so the same call
 * run again after a crash finds the task it started instead of starting a second.
 */
export class TaskStarter {
  readonly #options: TaskStarterOptions;

  constructor(options: TaskStarterOptions) {
    this.#options = options;
  }

  /** Tool names a task of `agent` may use. */
  allowedTools(agent: string): string[] {
    const { config, agentTools } = this.#options;
    const pool = config.tools.length > 0 ? config.tools : agentTools(agent);
    return [...new Set(pool)].filter((name) => !NEVER_IN_TASKS.test(name));
  }

  /** The sentence the agent reads: started, or why not. */
  async start(request: StartRequest): Promise<string> {
    const { store, config, clock, requests, logger } = this.#options;
    const prefix = request.prefix ?? "/";
    const title = request.title.trim().slice(0, MAX_TITLE_CHARS);
    const instructions = request.instructions.trim();
    if (title === "") return "Not started: give the task a short title.";
    if (instructions === "") return "Not started: write instructions for the task.";
    if (instructions.length > config.maxInstructionChars)
      return `Not started: the instructions are ${instructions.length} characters long; tasks take at most ${config.maxInstructionChars}. Write them shorter.`;
    const allowed = this.allowedTools(request.agent);
    const wanted = request.tools ?? allowed;
    const missing = wanted.filter((name) => !allowed.includes(name));
    if (missing.length > 0)
      return `Not started: ${missing.length === 1 ? "the tool" : "the tools"} ${missing.join(", ")} ${missing.length === 1 ? "is" : "are"} not available to tasks${allowed.length > 0 ? ` (available: ${allowed.join(", ")})` : " (tasks of this agent have no tools)"}.`;
    const id = taskIdFor(request);
    const existing = await store.get(id);
    if (existing) {
      // The same call run again after a crash, which may have come before the task was listed,
      // recorded in its request or announced: each done again (a task already due is queued once,
      // a run the request holds is not added twice). The task may even have ended meanwhile.
      await store.relist(existing);
      await this.#recordRun(existing);
      if (isTerminal(existing.status)) await requests?.finishRun(existing);
      else this.#options.started(existing);
      return startedSentence(existing, prefix);
    }
    const unfinished = (await store.inHome(request.key)).filter((task) => !isTerminal(task.status));
    if (unfinished.length >= config.maxRunningPerConversation)
      return `Not started: this thread already has ${unfinished.length} unfinished task${unfinished.length === 1 ? "" : "s"} (the limit is ${config.maxRunningPerConversation}): ${unfinished.map((task) => `${task.id} "${task.title}" (${task.status})`).join(", ")}. Tell the user they can wait for one to finish or cancel one with ${prefix}task cancel <id>.`;
    const origin = request.requestId ? await requests?.originOf(request.requestId) : undefined;
    const now = clock.now();
    const record: TaskRecord = {
      id,
      title,
      instructions,
      tools: [...new Set(wanted)],
      agent: request.agent,
      home: {
        key: request.key,
        conversation: decodeConversationKey(request.key),
        messageId: origin?.messageId ?? "",
      },
      requesterId: origin?.authorId ?? request.userId,
      ...(request.requestId ? { requestId: request.requestId } : {}),
      ...(request.runId ? { parentRunId: request.runId } : {}),
      runId: `run-task-${id}`,
      ...notStarted(),
      maxIterations: config.maxIterations,
      wallTimeMs: config.wallTimeMinutes * 60_000,
      createdAt: now,
      updatedAt: now,
    };
    const created = await store.create(record);
    await this.#recordRun(created);
    logger.info("task started", { taskId: id, agent: request.agent, key: request.key, title });
    this.#options.started(created);
    return startedSentence(created, prefix);
  }

  /** The task's run in the request that started it (when requests are tracked and it has one). */
  async #recordRun(record: TaskRecord): Promise<void> {
    if (!record.requestId) return;
    await this.#options.requests?.addRun(record.requestId, {
      runId: record.runId,
      ...(record.parentRunId ? { parentRunId: record.parentRunId } : {}),
    });
  }

  /** `start_task` for one agent: the conversation, user, request and run come from the run, never from the model. */
  toolFor(agent: string): StructuredToolInterface {
    const allowed = this.allowedTools(agent);
    return tool(
      async ({ title, instructions, tools }, config) =>
        this.start({ title, instructions, ...(tools ? { tools } : {}), agent, ...runOf(config) }),
      {
        name: START_TASK,
        description:
          "Start a background task for work that takes many steps (research, comparisons, long tool work). " +
          "It runs on its own with the tools you allow, while this conversation goes on, and its result is posted in this thread when it ends. " +
          "Write complete instructions: the task cannot ask the user questions. After starting it, tell the user its id and that the result will come here.",
        schema: z.object({
          title: z
            .string()
            .min(1)
            .describe("A short title the user will recognise, e.g. 'Compare flights to Lisbon'."),
          instructions: z
            .string()
            .min(1)
            .describe("Everything the task needs to know and do, and what its final answer must contain."),
          tools: z
            .array(z.string())
            .optional()
            .describe(`Tools the task may use; default: all it may use (${allowed.join(", ") || "none"}).`),
        }),
        // The task id derives from run id and tool call id: the same call repeated finds the same task.
        metadata: { acceptsIdempotencyKey: true },
      },
    );
  }
}

function runOf(config: RunnableConfig | undefined) {
  const configurable = config?.configurable ?? {};
  const text = (value: unknown) => (typeof value === "string" && value !== "" ? value : undefined);
  const key = text(configurable.thread_id);
  if (!key) throw new Error("start_task needs the conversation (thread_id) of the run");
  const requestId = text(configurable.request_id);
  const runId = text(configurable.run_id);
  const toolCallId = text(configurable.tool_call_id);
  const prefix = text(configurable[COMMAND_PREFIX_KEY]);
  return {
    key,
    userId: text(configurable.user_id) ?? "unknown",
    ...(requestId ? { requestId } : {}),
    ...(runId ? { runId } : {}),
    ...(toolCallId ? { toolCallId } : {}),
    ...(prefix ? { prefix } : {}),
  };
}

/** `T-` and six characters of base32 from the run and tool call (random when the run has no ids). */
export function taskIdFor(request: Pick<StartRequest, "runId" | "toolCallId" | "key" | "title">): string {
  const seed =
    request.runId && request.toolCallId
      ? `${request.runId}:${request.toolCallId}`
      : `${request.key}:${request.title}:${Math.random()}`;
  const digest = createHash("sha256").update(seed).digest();
  const alphabet = "ABCDEFGHJKMNPQRSTVWXYZ23456789";
  let id = "";
  for (let index = 0; index < 6; index++) id += alphabet[(digest[index] ?? 0) % alphabet.length];
  return `T-${id}`;
}

/** Accepts what people type: `t-7kq2md`, `7KQ2MD`, `T-7KQ2MD`. */
export function normalizeTaskId(text: string): string {
  const upper = text.trim().toUpperCase();
  return upper.startsWith("T-") ? upper : `T-${upper}`;
}

function startedSentence(record: TaskRecord, prefix: string): string {
  return `Started task ${record.id}: "${record.title}". It runs in the background (at most ${record.maxIterations} steps, ${Math.round(record.wallTimeMs / 60_000)} minutes); its result will be posted in this thread. Follow it with ${prefix}task ${record.id}, or list tasks with ${prefix}tasks.`;
}
