/**
 * A task's own LangGraph thread: one invoke is one step — a model call and the tool calls it asks
 * for — checkpointed when it ends, so a task continues after a restart from its last finished step.
 * Tool calls run at most once across crashes (the run journal, as in a turn).
 */
import { randomUUID } from "node:crypto";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage, SystemMessage, type ToolMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { StructuredToolInterface } from "@langchain/core/tools";
import {
  Annotation,
  type BaseCheckpointSaver,
  END,
  MessagesAnnotation,
  START,
  StateGraph,
} from "@langchain/langgraph";
import { skipUntracedRunTrees } from "../runtime/untraced-run-trees.ts";
import { pairToolCalls, textOf } from "../team/history.ts";
import { modelWithTools } from "../team/model-with-tools.ts";
import type { RunJournal } from "../team/run-journal.ts";
import { streamedModelCall } from "../team/streamed-call.ts";
import { invokeAtMostOnce } from "../team/tool-calls.ts";
import type { TaskToolCall } from "./task-store.ts";

/** What one step did, kept in the checkpoint with its messages: a crash after the checkpoint loses none of it. */
export interface StepSummary {
  readonly iteration: number;
  readonly text: string;
  readonly toolCalls: readonly TaskToolCall[];
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cachedTokens: number;
  readonly latencyMs: number;
  /** The model answered without calling a tool: the task is done and `text` is its result. */
  readonly final: boolean;
  readonly guidance: readonly string[];
}

const lastValue = <T>(initial: () => T) =>
  Annotation<T>({ reducer: (_previous, next) => next, default: initial });

export const TaskState = Annotation.Root({
  ...MessagesAnnotation.spec,
  /** Steps finished in this thread. */
  iteration: lastValue<number>(() => 0),
  lastStep: lastValue<StepSummary | null>(() => null),
  /** Guidance given as this step's input (the step log shows it). */
  guidance: lastValue<readonly string[]>(() => []),
});

export type TaskStateValue = typeof TaskState.State;

/** What the step needs besides its state; passed in the run's configurable (never checkpointed). */
export interface StepContext {
  readonly agent: string;
  readonly system: string;
  readonly model: BaseChatModel;
  readonly tools: readonly StructuredToolInterface[];
  readonly journal: RunJournal;
  /** The step's own run id (`<task run>:<iteration>`): the journal's key and tools' idempotency keys. */
  readonly stepRunId: string;
  /** Runs one model call under the process's retry policy (as the team does). */
  readonly callModel: <T>(
    call: (signal: AbortSignal | undefined, firstToken: () => void) => Promise<T>,
    signal: AbortSignal | undefined,
  ) => Promise<T>;
  readonly now: () => number;
}

export const STEP_CONTEXT_KEY = "task_step";

const SHORT = 300;

export function buildTaskGraph(checkpointer: BaseCheckpointSaver) {
  skipUntracedRunTrees();
  return new StateGraph(TaskState)
    .addNode("step", takeStep)
    .addEdge(START, "step")
    .addEdge("step", END)
    .compile({ checkpointer });
}

export type TaskGraph = ReturnType<typeof buildTaskGraph>;

async function takeStep(state: TaskStateValue, config: RunnableConfig) {
  const context = config.configurable?.[STEP_CONTEXT_KEY] as StepContext | undefined;
  if (!context) throw new Error("a task step needs its context in the run's configurable");
  const began = context.now();
  const iteration = state.iteration + 1;
  await context.journal.load(context.stepRunId);
  const agent = { name: context.agent, model: context.model, tools: context.tools };
  const bound = modelWithTools(agent, []);
  const messages: BaseMessage[] = [new SystemMessage(context.system), ...pairToolCalls(state.messages)];
  const replayed = context.journal.reply(context.stepRunId, 0);
  const reply =
    replayed ??
    (await context.callModel(streamedModelCall(bound, messages, context.agent, config), config.signal));
  const calls = reply.tool_calls ?? [];
  if (!replayed && calls.length > 0) await context.journal.recordReply(context.stepRunId, 0, reply);
  const message = new AIMessage({
    content: reply.content,
    tool_calls: calls,
    name: context.agent,
    id: randomUUID(),
    usage_metadata: reply.usage_metadata,
  });
  const stepConfig = {
    ...config,
    configurable: { ...config.configurable, run_id: context.stepRunId, resumed: true },
  };
  const results: ToolMessage[] = [];
  for (const call of calls) {
    const found = context.tools.find((tool) => tool.name === call.name);
    results.push(await invokeAtMostOnce(context.agent, found, call, stepConfig, context.journal));
  }
  context.journal.release(context.stepRunId);
  const usage = reply.usage_metadata;
  const summary: StepSummary = {
    iteration,
    text: textOf(message),
    toolCalls: calls.map((call, index) => {
      const result = results[index];
      return {
        name: call.name,
        args: shorten(JSON.stringify(call.args)),
        result: shorten(result ? textOf(result) : ""),
        status: result?.status === "error" ? "error" : "success",
      };
    }),
    inputTokens: usage?.input_tokens ?? 0,
    outputTokens: usage?.output_tokens ?? 0,
    cachedTokens: usage?.input_token_details?.cache_read ?? 0,
    latencyMs: context.now() - began,
    final: calls.length === 0,
    guidance: state.guidance,
  };
  return { messages: [message, ...results], iteration, lastStep: summary, guidance: [] };
}

export function shorten(text: string, max = SHORT): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
