import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { StructuredToolInterface } from "@langchain/core/tools";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import type { LoadImage } from "../attachments/model-content.ts";
import type { ModelCallPolicy } from "../models/spec.ts";
import type { Logger } from "../runtime/logger.ts";
import type { RunSteps } from "../steps/step-sink.ts";
import type { Store } from "../store/types.ts";
import type { ActiveAgentStore } from "./active-agents.ts";
import type { RunInput } from "./run-outcome.ts";
import type { FreshStartKind } from "./team-commands.ts";
import type { LimitsConfig, RoutingConfig, TeamConfig } from "./team-config.ts";

/** What a team is built from: its configuration, where it keeps state, and the hooks other features add. */
export interface TeamOptions {
  /** The supervisor and the specialists: prompts, descriptions, models and tools. */
  readonly config: TeamConfig;
  /** Whether a specialist keeps a thread after a handoff (`sticky`). */
  readonly routing: RoutingConfig;
  /** Bounds of one turn: model calls, repeated tool calls, wall time, interim messages. */
  readonly limits: LimitsConfig;
  /** Where each conversation's state (history, active agent) is checkpointed. */
  readonly checkpointer: BaseCheckpointSaver;
  /** Where the active agents and the run journal are kept. */
  readonly store: Store;
  /** The chat model for an agent's `model:` string; undefined → the default model. */
  readonly modelFor: (model: string | undefined) => BaseChatModel;
  /** How /status names an agent's model. */
  readonly describeModel: (model: string | undefined) => string;
  /** Tools agents may name in their `tools:` list. */
  readonly tools?: Readonly<Record<string, StructuredToolInterface>>;
  /**
   * Runs before a run that answers a new message reads the conversation's history (memory starts a
   * new session when the last one went quiet). A failure is logged and the run goes on.
   */
  readonly beforeRun?: (key: string) => Promise<void>;
  /** Extra system context per conversation (memory). */
  readonly contextFor?: (key: string) => Promise<string | undefined>;
  /**
   * The line every agent's prompt ends with: the asking person's date and time, the platform and
   * place. Computed once per run (every model call of the run sees the same line).
   */
  readonly situationFor?: (key: string, userId: string, now: number) => Promise<string | undefined>;
  /**
   * What the team keeps about the asking person, the conversation and the place (learnings), for
   * every agent's prompt. Read once per run.
   */
  readonly learningsFor?: (key: string, userId: string) => Promise<string | undefined>;
  /**
   * What else `/new` and `/reset` do to the conversation (memory archives its session…): runs
   * before the history is cleared and returns the sentences that say so.
   */
  readonly freshStart?: (key: string, userId: string, kind: FreshStartKind) => Promise<string[]>;
  /** Who answers each conversation; shared with whatever else changes it (handing a thread to a person). */
  readonly activeAgents?: ActiveAgentStore;
  /** Tools an agent has besides those its `tools:` list names (start_task, for the agents tasks allow). */
  readonly builtInTools?: (agent: string) => readonly StructuredToolInterface[];
  /** Tools attached to a conversation's agent at run time (find_tools). */
  readonly attachedTools?: (key: string, agent: string) => Promise<StructuredToolInterface[]>;
  /** Tools that wait for a person's approval before they run. */
  readonly needsApproval?: (toolName: string) => boolean;
  /** A tool's progress text (its `status`), shown while it runs; undefined → a plain default. */
  readonly toolStatus?: (toolName: string) => string | undefined;
  /** More lines for /status (open requests…); `viewer` is who asked, for lines only admins see. */
  readonly statusLines?: (key: string, viewer: string) => Promise<string[]>;
  /**
   * Where one graph run's model and tool calls are recorded (the run-steps log), asked for as the
   * graph starts; the team finishes it when the graph ends.
   */
  readonly stepsFor?: (input: RunInput) => RunSteps | undefined;
  /** Attempts and per-attempt timeout of every model call (the `model:` config); defaults otherwise. */
  readonly modelCalls?: ModelCallPolicy;
  /** Which models take images, and where the history's images are loaded from for a model call. */
  readonly images?: {
    readonly acceptsImages: (model: string | undefined) => boolean;
    readonly load: LoadImage;
  };
  /** Where warnings (a retried model call, a hook that failed) go; silent by default. */
  readonly logger?: Logger;
}
