/** Token counts of one model call, as LangChain's `usage_metadata` reports them. */
export interface TokenCounts {
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Input tokens served from the provider's prompt cache (part of `inputTokens`). */
  readonly cachedTokens: number;
}

export const NO_TOKENS: TokenCounts = { inputTokens: 0, outputTokens: 0, cachedTokens: 0 };

export function addTokens(a: TokenCounts, b: TokenCounts): TokenCounts {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cachedTokens: a.cachedTokens + b.cachedTokens,
  };
}

export interface ModelCallStep extends TokenCounts {
  readonly kind: "model_call";
  readonly agent: string;
  readonly model: string;
  readonly startedAt: number;
  readonly endedAt: number;
  readonly latencyMs: number;
  readonly finishReason?: string;
  /** USD from the price table; absent when the model has no price. */
  readonly costUsd?: number;
  readonly error?: string;
}

export interface ToolCallStep {
  readonly kind: "tool_call";
  readonly agent?: string;
  readonly tool: string;
  /** A short hash of the arguments: which calls repeat, without keeping what users typed. */
  readonly argsDigest: string;
  readonly startedAt: number;
  readonly endedAt: number;
  readonly latencyMs: number;
  readonly outcome: "ok" | "error";
  readonly error?: string;
}

export interface HandoffStep {
  readonly kind: "handoff";
  readonly from: string;
  readonly to: string;
}

export interface CommandStep {
  readonly kind: "command";
  readonly name: string;
}

export interface DeliveryStep {
  readonly kind: "delivery";
  readonly platform: string;
  readonly chunks: number;
  readonly messageIds: readonly string[];
  readonly latencyMs: number;
  readonly error?: string;
}

export interface MemoryStep {
  readonly kind: "memory";
  /** The memory graph's control state for this work. */
  readonly control: string;
  /** Messages of the turn it recorded. */
  readonly messages: number;
  readonly latencyMs: number;
  readonly error?: string;
}

export type StepDetail = ModelCallStep | ToolCallStep | HandoffStep | CommandStep | DeliveryStep | MemoryStep;
export type StepKind = StepDetail["kind"];

/** One entry of a run's append-only step history. */
export type RunStep = StepDetail & {
  readonly runId: string;
  /** Position in the run (from 0), in the order the steps were recorded. */
  readonly seq: number;
  /** When the step was recorded (ms since the epoch). */
  readonly at: number;
};

/** What caused a run. The tracked team's triggers, plus memory work and commands. */
export type RunTrigger =
  | "user_message"
  | "tools_attached"
  | "approval"
  | "webhook"
  | "memory"
  | "command"
  | (string & {});

export type RunStatus = "running" | "completed" | "failed" | "cancelled";

/** One run: what the reader lists; totals cover the model calls made while it ran. */
export interface RunSummary extends TokenCounts {
  readonly runId: string;
  readonly conversationKey: string;
  readonly requestId?: string;
  readonly userId?: string;
  readonly trigger: RunTrigger;
  readonly startedAt: number;
  readonly endedAt?: number;
  readonly status: RunStatus;
  /** Agents that made model calls, in the order they first did. */
  readonly agents: readonly string[];
  readonly modelCalls: number;
  readonly toolCalls: number;
  readonly costUsd: number;
  readonly error?: string;
}

/** Who a run belongs to: the ids `RequestTracker` hands out, and the conversation key. */
export interface RunIdentity {
  readonly runId: string;
  readonly conversationKey: string;
  readonly requestId?: string;
  readonly userId?: string;
  readonly trigger: RunTrigger;
}
