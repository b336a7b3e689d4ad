import { createHash } from "node:crypto";
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import type { Serialized } from "@langchain/core/load/serializable";
import type { BaseMessage } from "@langchain/core/messages";
import { AIMessage } from "@langchain/core/messages";
import type { ChatGeneration, LLMResult } from "@langchain/core/outputs";
import type { Clock } from "../runtime/clock.ts";
import { NO_TOKENS, type StepDetail, type TokenCounts } from "./run-step.ts";

/**
 * Where a model call's metadata names the agent it is for. A call made inside another agent's step
 * (a consulted colleague's answer) is that colleague's, whatever graph node made it.
 */
export const AGENT_METADATA_KEY = "switchboard_agent";

export interface StepSink {
  /** One finished step of the run this handler belongs to. */
  step(detail: StepDetail): void;
  /** The graph this handler was given to has ended (or failed). */
  graphEnded(outcome: { status: "completed" | "failed" | "cancelled"; error?: string }): void;
}

export interface ModelCallHandlerOptions {
  readonly sink: StepSink;
  readonly clock: Clock;
  /** Every model call is this agent's (memory); otherwise the graph node that made it. */
  readonly agent?: string;
  /** The agent a tool call hands off to, or undefined when the tool is not a handoff. */
  readonly handoffTargetOf?: (toolName: string) => string | undefined;
}

interface OpenCall {
  readonly startedAt: number;
  readonly agent: string;
  readonly model: string;
}

interface OpenTool {
  readonly startedAt: number;
  readonly agent?: string;
  readonly tool: string;
  readonly argsDigest: string;
}

/**
 * Turns LangChain's callback events for one graph run into steps: each model call (agent, model,
 * latency, tokens from `usage_metadata`, finish reason, error), each tool call (name, a digest of
 * its arguments, latency, outcome) and each handoff a model asks for. Given in the run's
 * `callbacks`, it sees every nested model and tool call without any change to the graph's nodes.
 */
export class ModelCallHandler extends BaseCallbackHandler {
  name = "switchboard-steps";
  // Awaited so the start times are taken when the call starts; the handler itself never waits on I/O.
  override awaitHandlers = true;
  readonly #options: ModelCallHandlerOptions;
  readonly #calls = new Map<string, OpenCall>();
  readonly #tools = new Map<string, OpenTool>();

  constructor(options: ModelCallHandlerOptions) {
    super();
    this.#options = options;
  }

  override handleChatModelStart(
    llm: Serialized,
    _messages: BaseMessage[][],
    runId: string,
    _parentRunId?: string,
    extraParams?: Record<string, unknown>,
    _tags?: string[],
    metadata?: Record<string, unknown>,
  ): void {
    this.#calls.set(runId, {
      startedAt: this.#options.clock.now(),
      agent: this.#agentOf(metadata),
      model: modelNameOf(llm, extraParams, metadata),
    });
  }

  override handleLLMEnd(output: LLMResult, runId: string): void {
    const call = this.#calls.get(runId);
    if (!call) return;
    this.#calls.delete(runId);
    const generation = output.generations[0]?.[0] as ChatGeneration | undefined;
    const message = generation?.message;
    const endedAt = this.#options.clock.now();
    const finishReason = finishReasonOf(generation);
    this.#options.sink.step({
      kind: "model_call",
      agent: call.agent,
      model: call.model,
      startedAt: call.startedAt,
      endedAt,
      latencyMs: endedAt - call.startedAt,
      ...tokensOf(message, output),
      ...(finishReason ? { finishReason } : {}),
    });
    if (message && AIMessage.isInstance(message)) {
      for (const toolCall of message.tool_calls ?? []) {
        const target = this.#options.handoffTargetOf?.(toolCall.name);
        if (target) this.#options.sink.step({ kind: "handoff", from: call.agent, to: target });
      }
    }
  }

  override handleLLMError(error: unknown, runId: string): void {
    const call = this.#calls.get(runId);
    if (!call) return;
    this.#calls.delete(runId);
    const endedAt = this.#options.clock.now();
    this.#options.sink.step({
      kind: "model_call",
      agent: call.agent,
      model: call.model,
      startedAt: call.startedAt,
      endedAt,
      latencyMs: endedAt - call.startedAt,
      ...NO_TOKENS,
      error: messageOf(error),
    });
  }

  override handleToolStart(
    tool: Serialized,
    input: string,
    runId: string,
    _parentRunId?: string,
    _tags?: string[],
    metadata?: Record<string, unknown>,
    runName?: string,
  ): void {
    const agent = typeof metadata?.langgraph_node === "string" ? metadata.langgraph_node : undefined;
    this.#tools.set(runId, {
      startedAt: this.#options.clock.now(),
      ...(agent ? { agent: agent.replace(/__tools$/, "") } : {}),
      tool: runName ?? tool.id.at(-1) ?? "tool",
      argsDigest: createHash("sha256").update(input).digest("hex").slice(0, 12),
    });
  }

  override handleToolEnd(output: unknown, runId: string): void {
    const failed =
      typeof output === "object" && output !== null && "status" in output && output.status === "error";
    this.#toolEnded(runId, failed ? "error" : "ok");
  }

  override handleToolError(error: unknown, runId: string): void {
    this.#toolEnded(runId, "error", messageOf(error));
  }

  override handleChainEnd(_outputs: unknown, _runId: string, parentRunId?: string): void {
    if (parentRunId === undefined) this.#options.sink.graphEnded({ status: "completed" });
  }

  override handleChainError(error: unknown, _runId: string, parentRunId?: string): void {
    if (parentRunId !== undefined) return;
    const cancelled =
      error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError");
    this.#options.sink.graphEnded({ status: cancelled ? "cancelled" : "failed", error: messageOf(error) });
  }

  #toolEnded(runId: string, outcome: "ok" | "error", error?: string): void {
    const open = this.#tools.get(runId);
    if (!open) return;
    this.#tools.delete(runId);
    const endedAt = this.#options.clock.now();
    this.#options.sink.step({
      kind: "tool_call",
      ...open,
      endedAt,
      latencyMs: endedAt - open.startedAt,
      outcome,
      ...(error ? { error } : {}),
    });
  }

  #agentOf(metadata: Record<string, unknown> | undefined): string {
    if (this.#options.agent) return this.#options.agent;
    const named = metadata?.[AGENT_METADATA_KEY];
    if (typeof named === "string" && named !== "") return named;
    const node = metadata?.langgraph_node;
    return typeof node === "string" ? node : "unknown";
  }
}

function modelNameOf(
  llm: Serialized,
  extraParams: Record<string, unknown> | undefined,
  metadata: Record<string, unknown> | undefined,
): string {
  const params = extraParams?.invocation_params;
  if (params && typeof params === "object") {
    const record = params as Record<string, unknown>;
    for (const field of ["model", "model_name", "modelName"]) {
      if (typeof record[field] === "string" && record[field] !== "") return record[field];
    }
  }
  if (typeof metadata?.ls_model_name === "string") return metadata.ls_model_name;
  return llm.id.at(-1) ?? "unknown";
}

function tokensOf(message: BaseMessage | undefined, output: LLMResult): TokenCounts {
  const usage = message && AIMessage.isInstance(message) ? message.usage_metadata : undefined;
  if (usage) {
    return {
      inputTokens: usage.input_tokens ?? 0,
      outputTokens: usage.output_tokens ?? 0,
      cachedTokens: usage.input_token_details?.cache_read ?? 0,
    };
  }
  // Older providers report only in llmOutput.
  const legacy = output.llmOutput?.tokenUsage as Record<string, number> | undefined;
  return {
    inputTokens: legacy?.promptTokens ?? 0,
    outputTokens: legacy?.completionTokens ?? 0,
    cachedTokens: 0,
  };
}

function finishReasonOf(generation: ChatGeneration | undefined): string | undefined {
  const info = generation?.generationInfo ?? {};
  const metadata =
    generation?.message && AIMessage.isInstance(generation.message)
      ? generation.message.response_metadata
      : {};
  for (const value of [info.finish_reason, metadata?.finish_reason, metadata?.stop_reason]) {
    if (typeof value === "string" && value !== "") return value;
  }
  return undefined;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
