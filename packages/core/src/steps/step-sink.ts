/**
 * Where a run's model and tool calls are recorded. The run's recording travels in the graph's
 * `configurable` (never checkpointed, like the turn's event listener), and the code that makes a
 * call reports it itself. No LangChain callback handler: with any handler in a run, LangChain builds
 * callback managers, metadata copies and run ids for every runnable step of it, which cost the CLI
 * about a millisecond and a half of CPU per turn.
 */
import { createHash } from "node:crypto";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { NO_TOKENS, type RunStatus, type StepDetail, type TokenCounts } from "./run-step.ts";

/** Takes one run's steps as they happen. */
export interface StepSink {
  /** Milliseconds now, on the recording's clock. */
  now(): number;
  /** One finished step of the run. */
  step(detail: StepDetail): void;
}

/** A run being recorded: its steps, and its end, said once by whoever ran it. */
export interface RunSteps extends StepSink {
  finish(status: Exclude<RunStatus, "running">, error?: string): void;
}

/** Where a graph run's sink travels in its configurable, beside `thread_id`. */
export const RUN_STEPS_KEY = "run_steps";

/** The sink of the run `config` belongs to, if that run is recorded. */
export function stepSinkOf(config: RunnableConfig | undefined): StepSink | undefined {
  const sink: unknown = config?.configurable?.[RUN_STEPS_KEY];
  return isStepSink(sink) ? sink : undefined;
}

function isStepSink(value: unknown): value is StepSink {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as Partial<StepSink>).step === "function" &&
    typeof (value as Partial<StepSink>).now === "function"
  );
}

export interface ModelCallOf {
  readonly agent: string;
  readonly model: string;
  /** The agent a tool call hands off to, or undefined when the tool is not a handoff. */
  readonly handoffTargetOf?: (toolName: string) => string | undefined;
}

/**
 * Runs one model call (one attempt) and records it: agent, model, latency, tokens from the reply's
 * `usage_metadata`, finish reason, or the error it failed with; then each handoff the reply asks for.
 */
export async function recordModelCall<T extends BaseMessage>(
  sink: StepSink | undefined,
  of: ModelCallOf,
  call: () => Promise<T>,
): Promise<T> {
  if (!sink) return call();
  const startedAt = sink.now();
  const record = (outcome: TokenCounts & { finishReason?: string; error?: string }) => {
    const endedAt = sink.now();
    sink.step({
      kind: "model_call",
      agent: of.agent,
      model: of.model,
      startedAt,
      endedAt,
      latencyMs: endedAt - startedAt,
      ...outcome,
    });
  };
  let reply: T;
  try {
    reply = await call();
  } catch (error) {
    record({ ...NO_TOKENS, error: messageOf(error) });
    throw error;
  }
  const ai = AIMessage.isInstance(reply) ? reply : undefined;
  const finishReason = ai ? finishReasonOf(ai) : undefined;
  record({ ...tokensOf(ai), ...(finishReason ? { finishReason } : {}) });
  for (const toolCall of ai?.tool_calls ?? []) {
    const target = of.handoffTargetOf?.(toolCall.name);
    if (target) sink.step({ kind: "handoff", from: of.agent, to: target });
  }
  return reply;
}

/**
 * Runs one tool call and records it: agent, tool, a digest of its arguments, latency, and whether it
 * failed (it threw, or answered with an error `ToolMessage`). `passThrough` errors (an interrupt
 * waiting for a person) are the graph's, not the tool's: they are not recorded as failures.
 */
export async function recordToolCall<T>(
  sink: StepSink | undefined,
  of: { readonly agent: string; readonly tool: string; readonly args: unknown },
  call: () => Promise<T>,
  passThrough: (error: unknown) => boolean = () => false,
): Promise<T> {
  if (!sink) return call();
  const startedAt = sink.now();
  const argsDigest = digestOf(of.args);
  const record = (outcome: "ok" | "error", error?: string) => {
    const endedAt = sink.now();
    sink.step({
      kind: "tool_call",
      agent: of.agent,
      tool: of.tool,
      argsDigest,
      startedAt,
      endedAt,
      latencyMs: endedAt - startedAt,
      outcome,
      ...(error ? { error } : {}),
    });
  };
  let output: T;
  try {
    output = await call();
  } catch (error) {
    if (!passThrough(error)) record("error", messageOf(error));
    throw error;
  }
  const failed =
    typeof output === "object" && output !== null && "status" in output && output.status === "error";
  record(failed ? "error" : "ok");
  return output;
}

/**
 * The model's name as providers price it: the chat model's `model` (or `modelName`), looked for
 * through the bindings `bindTools` wraps it in, else its class name.
 */
export function modelNameOf(model: unknown): string {
  let current: unknown = model;
  for (let depth = 0; depth < 4 && typeof current === "object" && current !== null; depth++) {
    const fields = current as Record<string, unknown>;
    for (const field of ["model", "modelName", "model_name"]) {
      const value = fields[field];
      if (typeof value === "string" && value !== "") return value;
    }
    if (!("bound" in fields)) break;
    current = fields.bound;
  }
  const id: unknown = (current as { lc_id?: unknown } | null)?.lc_id;
  const name = Array.isArray(id) ? id.at(-1) : undefined;
  return typeof name === "string" && name !== "" ? name : "unknown";
}

function tokensOf(message: AIMessage | undefined): TokenCounts {
  const usage = message?.usage_metadata;
  if (!usage) return NO_TOKENS;
  return {
    inputTokens: usage.input_tokens ?? 0,
    outputTokens: usage.output_tokens ?? 0,
    cachedTokens: usage.input_token_details?.cache_read ?? 0,
  };
}

function finishReasonOf(message: AIMessage): string | undefined {
  const metadata = message.response_metadata ?? {};
  for (const value of [metadata.finish_reason, metadata.stop_reason]) {
    if (typeof value === "string" && value !== "") return value;
  }
  return undefined;
}

function digestOf(args: unknown): string {
  const text = typeof args === "string" ? args : (JSON.stringify(args) ?? "");
  return createHash("sha256").update(text).digest("hex").slice(0, 12);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/** How a run that threw ended: cancelled when it was aborted or timed out, failed otherwise. */
export function endOfFailedRun(error: unknown): { status: "failed" | "cancelled"; error: string } {
  const cancelled = error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError");
  return { status: cancelled ? "cancelled" : "failed", error: messageOf(error) };
}
