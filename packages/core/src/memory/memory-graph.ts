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
import { ControlState, type MemoryStep, nextMemoryStep } from "./control-state.ts";
import type { MemoryBook } from "./memory-book.ts";
import { addEntryPrompt, ENTRY_CONTEXT_MESSAGES, putContextPrompt } from "./memory-prompts.ts";
import { MemoryState, type MemoryStateUpdate, type MemoryStateValue } from "./memory-state.ts";
import { ADD_ENTRY, PUT_CONTEXT } from "./memory-tools.ts";
import type { PromptLine, SessionStore } from "./session-store.ts";
import { extractiveSummary } from "./summarize.ts";

export interface MemoryGraphOptions {
  readonly checkpointer: BaseCheckpointSaver;
  /** Absent: every entry is recorded extractively and the context document is left as it is. */
  readonly model: BaseChatModel | undefined;
  /** add_entry and put_context. */
  readonly tools: readonly StructuredToolInterface[];
  readonly book: MemoryBook;
  /** The live session's record and lines: what the prompts show of it, and what archiving reads. */
  readonly sessions: SessionStore;
  /** START_SESSION's deterministic load: the context for the team's agents ("" when nothing is remembered). */
  readonly loadContext: (key: string) => Promise<string>;
  readonly clock: Clock;
  readonly logger: Logger;
  /**
   * Attempts and per-attempt timeout of model calls, and the signal that ends them at shutdown; a
   * call that fails or is cut short records its step without the model.
   */
  readonly modelCalls?: ModelCallLimits;
}

const RECORD = "record";
const OBSERVE = "observe";
const TOOLS = "tools";
/** Steps of one run: a flush is load → entry + context → tools → finish; far more means a loop. */
const MAX_STEPS = 20;

/** The state a session leaves behind when it ends: nothing live, the counter back at 0. */
const ENDED_SESSION: MemoryStateUpdate = { toProcess: [], messageCount: 0, flushedAt: 0 };
/** The most messages a context rewrite is shown, however long ago the last one was. */
const MAX_SYNTHESIS_MESSAGES = 80;

/**
 * The memory agent, one graph step per run: `observe` decides the next step from the run's control
 * state and the last tool that ran; deterministic steps (loading context) run right there without a model, model
 * steps ask for exactly one tool call, which `tools` executes. A model that fails or answers
 * without the tool never loses the message: the step is recorded without it and the run goes on.
 */
export function buildMemoryGraph(options: MemoryGraphOptions) {
  const bound = options.model ? options.model.bindTools?.([...options.tools]) : undefined;
  if (options.model && !bound) {
    throw new TypeError("the memory model cannot call tools; configure a model with tool calling");
  }
  const observe = async (state: MemoryStateValue, config: RunnableConfig): Promise<MemoryStateUpdate> => {
    const key = conversationKeyOf(config);
    const step = nextMemoryStep(state.control, lastToolName(state.toolHistory));
    // A flush whose one call also rewrote the document is done; nextMemoryStep sees only the last tool.
    if (step === "put-context" && state.control !== ControlState.END_SESSION && rewroteContext(state))
      return finish(state, key, options);
    const ask = async (
      tools: readonly string[],
      prompt: string,
      fallback: () => Promise<string>,
    ): Promise<MemoryStateUpdate> => {
      const [primary = ADD_ENTRY] = tools;
      const recordedWithoutModel = async (): Promise<MemoryStateUpdate> => {
        const outcome = new ToolMessage({
          tool_call_id: randomUUID(),
          name: primary,
          content: await fallback(),
        });
        return { toolHistory: [...state.toolHistory, outcome] };
      };
      if (!bound) return recordedWithoutModel();
      const messages = [
        new SystemMessage(prompt),
        new HumanMessage(`Call the ${tools.join(" and the ")} tool${tools.length > 1 ? "s" : ""} now.`),
      ];
      try {
        const reply = await invokeWithRetry((_attempt, signal) => bound.invoke(messages, { signal }), {
          ...options.modelCalls,
          onRetry: (event) =>
            options.logger.warn("memory model call failed; retrying", {
              key,
              attempt: event.attempt,
              kind: event.kind,
            }),
        });
        const calls = (reply.tool_calls ?? []).filter((candidate) => tools.includes(candidate.name));
        // The primary tool records the turn: without it the turn is recorded without the model.
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
      return recordedWithoutModel();
    };
    return runStep(step, state, key, options, ask);
  };
  const runTools = async (state: MemoryStateValue, config: RunnableConfig): Promise<MemoryStateUpdate> => {
    const last = state.toolHistory.at(-1);
    const calls = last && AIMessage.isInstance(last) ? (last.tool_calls ?? []) : [];
    const results: BaseMessage[] = [];
    for (const call of calls) {
      const found = options.tools.find((candidate) => candidate.name === call.name);
      if (!found) throw new Error(`the memory graph has no tool ${call.name}`);
      try {
        results.push((await found.invoke({ ...call, type: "tool_call" }, config)) as ToolMessage);
      } catch (error) {
        options.logger.warn("memory tool failed; recording without the model's version", {
          tool: call.name,
          error,
        });
        const content =
          call.name === ADD_ENTRY
            ? await recordWithoutModel(state, conversationKeyOf(config), options)
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
    const flushed = results.some((result) => ToolMessage.isInstance(result) && result.name === PUT_CONTEXT);
    return {
      toolHistory: [...state.toolHistory, ...results],
      ...(flushed ? { flushedAt: state.messageCount } : {}),
    };
  };
  const route = (state: MemoryStateValue) => {
    const last = state.toolHistory.at(-1);
    if (last && AIMessage.isInstance(last) && (last.tool_calls?.length ?? 0) > 0) return TOOLS;
    return last && ToolMessage.isInstance(last) ? OBSERVE : END;
  };
  // The whole observe → tools → observe loop is one graph step: the run's checkpoint is written
  // once when it ends either way (`durability: "exit"`), and each graph step costs LangGraph's task
  // bookkeeping plus a LangSmith run tree (ids, timestamps) even with tracing off.
  const record = async (state: MemoryStateValue, config: RunnableConfig): Promise<MemoryStateUpdate> => {
    let current = state;
    let written: MemoryStateUpdate = {};
    for (let step = 0, next = OBSERVE; next !== END; step += 1, next = route(current)) {
      if (step >= MAX_STEPS) throw new Error(`the memory run took more than ${MAX_STEPS} steps`);
      const update = next === TOOLS ? await runTools(current, config) : await observe(current, config);
      // Every channel is last-value (memory-state.ts), and no step writes an Overwrite: a spread is the reducer.
      current = { ...current, ...update } as MemoryStateValue;
      written = { ...written, ...update };
    }
    return written;
  };
  return new StateGraph(MemoryState)
    .addNode(RECORD, record)
    .addEdge(START, RECORD)
    .addEdge(RECORD, END)
    .compile({ checkpointer: options.checkpointer });
}

type Ask = (
  tools: readonly string[],
  prompt: string,
  fallback: () => Promise<string>,
) => Promise<MemoryStateUpdate>;

async function runStep(
  step: MemoryStep,
  state: MemoryStateValue,
  key: string,
  options: MemoryGraphOptions,
  ask: Ask,
): Promise<MemoryStateUpdate> {
  const { sessions } = options;
  switch (step) {
    case "load-context": {
      await sessions.start(key, options.clock.now(), await options.loadContext(key));
      return { messageCount: 0, toolHistory: [new AIMessage("Session started.")] };
    }
    case "add-entry": {
      const turn = state.toProcess;
      if (turn.length === 0) return { toolHistory: [new AIMessage("Nothing to record.")] };
      const first = state.messageCount - turn.length + 1;
      // Written before the model is asked: the turn is in the session whatever the model does.
      await sessions.writeLines(key, first, turn);
      const flushing = state.control === ControlState.PROCESS_MESSAGE_AND_FLUSH;
      const flush = flushing ? await flushContext(state, key, options, first - 1) : undefined;
      const earlier = flush
        ? []
        : await sessionLines(sessions, key, first - ENTRY_CONTEXT_MESSAGES, first - 1);
      return ask(
        flushing ? [ADD_ENTRY, PUT_CONTEXT] : [ADD_ENTRY],
        addEntryPrompt(earlier, turn, flush),
        () => recordWithoutModel(state, key, options),
      );
    }
    case "put-context": {
      // Nothing the document does not already hold (no messages, or none since the last rewrite).
      if (state.messageCount === 0 || state.flushedAt >= state.messageCount)
        return finish(state, key, options);
      const { currentContext, sinceLastFlush } = await flushContext(state, key, options, state.messageCount);
      return ask(
        [PUT_CONTEXT],
        putContextPrompt(sinceLastFlush, currentContext),
        async () => "Context document kept.",
      );
    }
    case "finish":
      return finish(state, key, options);
  }
}

async function finish(
  state: MemoryStateValue,
  key: string,
  options: MemoryGraphOptions,
): Promise<MemoryStateUpdate> {
  const done = { toolHistory: [...state.toolHistory, new AIMessage(`Done: ${state.control}.`)] };
  if (state.control !== ControlState.END_SESSION) return done;
  await options.sessions.end(key, state.messageCount);
  return { ...ENDED_SESSION, ...done };
}

/** What a context rewrite needs: the current document and the session's messages it does not hold yet. */
async function flushContext(
  state: MemoryStateValue,
  key: string,
  options: MemoryGraphOptions,
  upTo: number,
): Promise<{ currentContext: string | undefined; sinceLastFlush: PromptLine[] }> {
  // The current document already holds everything up to the last rewrite: those are not sent again.
  const from = Math.max(state.flushedAt + 1, upTo - MAX_SYNTHESIS_MESSAGES + 1);
  const [current, sinceLastFlush] = await Promise.all([
    options.book.context(key),
    sessionLines(options.sessions, key, from, upTo),
  ]);
  return { currentContext: current?.content, sinceLastFlush };
}

async function sessionLines(
  sessions: SessionStore,
  key: string,
  from: number,
  to: number,
): Promise<PromptLine[]> {
  return to < 1 ? [] : sessions.lines(key, Math.max(1, from), to);
}

/** The entries a failed model would have written: the raw text and its first sentences as the summary. */
async function recordWithoutModel(
  state: MemoryStateValue,
  key: string,
  options: MemoryGraphOptions,
): Promise<string> {
  if (state.toProcess.length === 0) return "Nothing to record.";
  const written = await options.book.addEntries(
    key,
    state.toProcess.map(({ role, text }) => ({
      role,
      summary: extractiveSummary([{ role, text }]),
      raw: text,
      tags: ["unsummarized"],
      at: options.clock.now(),
    })),
  );
  return `Entries ${written.map((entry) => entry.seq).join(", ")} recorded without the memory model.`;
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
