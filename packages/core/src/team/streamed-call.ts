import type { BaseLanguageModelInput } from "@langchain/core/language_models/base";
import type { AIMessageChunk, BaseMessage } from "@langchain/core/messages";
import type { ToolCall } from "@langchain/core/messages/tool";
import type { Runnable, RunnableConfig } from "@langchain/core/runnables";
import { modelNameOf, recordModelCall, stepSinkOf } from "../steps/step-sink.ts";
import { handoffProgress, type TurnEventListener, toolProgress } from "../streaming/turn-events.ts";
import { handoffTarget } from "./handoff.ts";
import { SEND_MESSAGE } from "./send-message.ts";

/** Where a run's listener travels: the graph's configurable, beside `thread_id` (never checkpointed). */
export const TURN_EVENTS_KEY = "turn_events";

export type ChatRunnable = Runnable<BaseLanguageModelInput, AIMessageChunk>;

export function turnEventsOf(config: RunnableConfig): TurnEventListener | undefined {
  const listener: unknown = config.configurable?.[TURN_EVENTS_KEY];
  return typeof listener === "function" ? (listener as TurnEventListener) : undefined;
}

/**
 * One model call, streamed: text is passed on as it arrives, until the reply shows it is a tool
 * call (then what was passed on is taken back — a tool step's preamble is not the answer). Each
 * retried attempt takes back what the failed one showed. Returns the whole reply.
 */
export function streamedModelCall(
  model: ChatRunnable,
  messages: BaseMessage[],
  agent: string,
  config: RunnableConfig,
): (signal: AbortSignal | undefined, firstToken?: () => void) => Promise<AIMessageChunk> {
  const listener = turnEventsOf(config);
  let shown = false;
  const discard = () => {
    if (shown) listener?.({ kind: "discard", agent });
    shown = false;
  };
  // Recorded in the run-steps log as this agent's call, whichever graph node made it.
  const steps = stepSinkOf(config);
  const call = { agent, model: modelNameOf(model), handoffTargetOf: handoffTarget };
  return (signal, firstToken) => recordModelCall(steps, call, () => attempt(signal, firstToken));
  async function attempt(signal: AbortSignal | undefined, firstToken?: () => void): Promise<AIMessageChunk> {
    discard();
    let reply: AIMessageChunk | undefined;
    let toolCalling = false;
    // The attempt's signal (the run's, plus the attempt's timers): a hung stream is cancelled.
    const callSignal = signal ?? config.signal;
    const stream = await model.stream(messages, callSignal ? { signal: callSignal } : {});
    for await (const chunk of stream) {
      if (chunk.text !== "" || (chunk.tool_call_chunks?.length ?? 0) > 0) firstToken?.();
      reply = reply ? reply.concat(chunk) : chunk;
      if (!toolCalling && (chunk.tool_call_chunks?.length ?? 0) > 0) {
        toolCalling = true;
        discard();
      }
      const delta = chunk.text;
      if (!toolCalling && listener && delta !== "") {
        listener({ kind: "text", agent, delta });
        shown = true;
      }
    }
    if (!reply) throw new Error(`the model of agent ${agent} returned no reply`);
    if ((reply.tool_calls?.length ?? 0) > 0) discard();
    else listener?.({ kind: "complete", agent });
    return reply;
  }
}

/** Tells the listener what the tool calls of a reply are about to do. */
export function announceToolCalls(
  config: RunnableConfig,
  agent: string,
  calls: readonly ToolCall[],
  statusOf: (tool: string) => string | undefined,
): void {
  const listener = turnEventsOf(config);
  if (!listener) return;
  for (const call of calls) {
    // The message itself is what the thread sees; a line saying one is being sent would only flicker.
    if (call.name === SEND_MESSAGE) continue;
    const target = handoffTarget(call.name);
    const status =
      target === undefined
        ? toolProgress(agent, call.name, statusOf(call.name))
        : handoffProgress(agent, target);
    listener({ kind: "progress", agent, status });
  }
}
