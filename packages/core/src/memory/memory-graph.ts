import { randomUUID } from "node:crypto";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
} from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { type BaseCheckpointSaver, END, START, StateGraph } from "@langchain/langgraph";
import { invokeWithRetry, type ModelCallLimits } from "../models/retry.ts";
import type { Clock } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";
import { skipUntracedRunTrees } from "../runtime/untraced-run-trees.ts";
import { modelNameOf, recordModelCall, recordToolCall, stepSinkOf } from "../steps/step-sink.ts";
import { nextMemoryStep } from "./control-state.ts";
import type { MemoryBook } from "./memory-book.ts";
import { putContextPrompt, recordTurnsPrompt, turnsOf } from "./memory-prompts.ts";
import { MemoryState, type MemoryStateUpdate, type MemoryStateValue } from "./memory-state.ts";
import { ADD_ENTRY, PUT_CONTEXT, recordTurnWithoutModel } from "./memory-tools.ts";
import { MEMORY_AGENT } from "./memory-work.ts";

export interface MemoryGraphOptions {
  readonly checkpointer: BaseCheckpointSaver;
  /** Absent: every entry is recorded extractively and the context document is left as it is. */
  readonly model: BaseChatModel | undefined;
  /** add_entry and put_context. */
  readonly tools: readonly StructuredToolInterface[];
  readonly book: MemoryBook;
  readonly clock: Clock;
  readonly logger: Logger;
  /**
   * Attempts, per-attempt timeout of model calls, and the signal that ends them at shutdown; a
   * call that fails or is cut short records its turns without the model.
   */
  readonly modelCalls?: ModelCallLimits;
}

const OBSERVE = "observe";
const TOOLS = "tools";

/**
 * The memory agent's model work (PROCESS_MESSAGE_AND_FLUSH, END_SESSION): `observe` decides the
 * next step from the last tool that ran; a step asks the model for its tool calls, which `tools`
 * executes. One call normally does it all: entries for every turn since the last flush and the
 * new context document; a second call only when the model left the document out. A model that
 * fails or answers without its tool never loses a turn: the turns are recorded without it.
 */
export function buildMemoryGraph(options: MemoryGraphOptions) {
  skipUntracedRunTrees();
  const bound = options.model ? options.model.bindTools?.([...options.tools]) : undefined;
  if (options.model && !bound) {
    throw new TypeError("the memory model cannot call tools; configure a model with tool calling");
  }
  const observe = async (state: MemoryStateValue, config: RunnableConfig): Promise<MemoryStateUpdate> => {
    const key = conversationKeyOf(config);
    const step = nextMemoryStep(lastToolName(state.toolHistory));
    const turns = turnsOf(state.toProcess);
    if (step === "finish" || turns.length === 0 || (step === "put-context" && rewroteContext(state)))
      return { toProcess: [], toolHistory: [...state.toolHistory, new AIMessage(`Done: ${state.control}.`)] };
    const recordedWithoutModel = async (tool: string): Promise<MemoryStateUpdate> => {
      const content =
        tool === ADD_ENTRY ? await recordWithoutModel(turns, key, options) : "Context document kept.";
      const outcome = new ToolMessage({ tool_call_id: randomUUID(), name: tool, content });
      return { toolHistory: [...state.toolHistory, outcome] };
    };
    const tools = step === "record" ? [ADD_ENTRY, PUT_CONTEXT] : [PUT_CONTEXT];
    const [primary = ADD_ENTRY] = tools;
    if (!bound) return recordedWithoutModel(primary);
    const current = (await options.book.context(key))?.content;
    const prompt = step === "record" ? recordTurnsPrompt(turns, current) : putContextPrompt(turns, current);
    const messages = [
      new SystemMessage(prompt),
      new HumanMessage(`Call the ${tools.join(" and the ")} tool${tools.length > 1 ? "s" : ""} now.`),
    ];
    try {
      const call = { agent: MEMORY_AGENT, model: modelNameOf(bound) };
      const steps = stepSinkOf(config);
      const attempt = (signal: AbortSignal | undefined) =>
        recordModelCall(steps, call, () => bound.invoke(messages, { signal }));
      const reply = await invokeWithRetry((_attempt, signal) => attempt(signal), {
        ...options.modelCalls,
        onRetry: (event) =>
          options.logger.warn("memory model call failed; retrying", {
            key,
            attempt: event.attempt,
            kind: event.kind,
          }),
      });
      const calls = (reply.tool_calls ?? []).filter((candidate) => tools.includes(candidate.name));
      // The primary tool is the step's point: without it the step is done without the model.
      if (calls.some((call) => call.name === primary)) {
        const asked = new AIMessage({
          content: reply.content,
          tool_calls: calls.map((call) => ({ ...call, id: call.id ?? randomUUID() })),
        });
        return { toolHistory: [...state.toolHistory, asked] };
      }
      options.logger.warn("memory model answered without calling its tool; recording without it", {
        key,
        tool: primary,
      });
    } catch (error) {
      options.logger.warn("memory model failed; recording without it", { key, tool: primary, error });
    }
    return recordedWithoutModel(primary);
  };
  const runTools = async (state: MemoryStateValue, config: RunnableConfig): Promise<MemoryStateUpdate> => {
    const last = state.toolHistory.at(-1);
    const calls = last && AIMessage.isInstance(last) ? (last.tool_calls ?? []) : [];
    const results: BaseMessage[] = [];
    for (const call of calls) {
      const found = options.tools.find((candidate) => candidate.name === call.name);
      if (!found) throw new Error(`the memory graph has no tool ${call.name}`);
      try {
        const result = await recordToolCall(
          stepSinkOf(config),
          { agent: MEMORY_AGENT, tool: call.name, args: call.args },
          () => found.invoke({ ...call, type: "tool_call" }, config),
        );
        results.push(result as ToolMessage);
      } catch (error) {
        options.logger.warn("memory tool failed; recording without the model's version", {
          tool: call.name,
          error,
        });
        const content =
          call.name === ADD_ENTRY
            ? await recordWithoutModel(turnsOf(state.toProcess), conversationKeyOf(config), options)
            : "Context document kept.";
        results.push(
          new ToolMessage({
            tool_call_id: call.id ?? randomUUID(),
            name: call.name,
            content,
            status: "error",
          }),
        );
      }
    }
    return { toolHistory: [...state.toolHistory, ...results] };
  };
  const route = (state: MemoryStateValue) => {
    const last = state.toolHistory.at(-1);
    if (last && AIMessage.isInstance(last) && (last.tool_calls?.length ?? 0) > 0) return TOOLS;
    return last && ToolMessage.isInstance(last) ? OBSERVE : END;
  };
  return new StateGraph(MemoryState)
    .addNode(OBSERVE, observe)
    .addNode(TOOLS, runTools)
    .addEdge(START, OBSERVE)
    .addConditionalEdges(OBSERVE, route, [TOOLS, OBSERVE, END])
    .addEdge(TOOLS, OBSERVE)
    .compile({ checkpointer: options.checkpointer });
}

/** The entries a failed model would have written: the raw text and its first sentences as the summary. */
async function recordWithoutModel(
  turns: readonly (readonly { role: "user" | "bot"; text: string }[])[],
  key: string,
  options: MemoryGraphOptions,
): Promise<string> {
  const written: number[] = [];
  for (const turn of turns)
    written.push(...(await recordTurnWithoutModel(options.book, key, turn, options.clock.now())));
  return written.length > 0
    ? `Entries ${written.join(", ")} recorded without the memory model.`
    : "Nothing to record.";
}

function rewroteContext(state: MemoryStateValue): boolean {
  return state.toolHistory.some((message) => ToolMessage.isInstance(message) && message.name === PUT_CONTEXT);
}

function lastToolName(history: readonly BaseMessage[]): string | null {
  const last = history.at(-1);
  return last && ToolMessage.isInstance(last) ? (last.name ?? null) : null;
}

function conversationKeyOf(config: RunnableConfig): string {
  const key: unknown = config.configurable?.conversation_key;
  if (typeof key !== "string" || key === "") throw new Error("memory graph run without a conversation_key");
  return key;
}

export type MemoryGraph = ReturnType<typeof buildMemoryGraph>;
