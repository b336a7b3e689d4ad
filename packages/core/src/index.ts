/**
 * @switchboard/core: the engine that answers each thread one turn at a time, the agent team, memory,
 * requests, tasks, tools and models, the store and checkpointer factories, and the configuration
 * types they take. What a program that runs a bot needs; the rest is under deliberately named
 * subpaths: /adapter (writing a platform adapter), /config (the configuration schemas),
 * /host (wiring a full deployment, as the switchboard CLI does), /records (reading what happened),
 * /testing (the adapter contract suite and test helpers). The API reports in ../api/ record each.
 */
export type { AttachmentsConfig } from "./attachments/attachments-config.ts";
export { type OpenedCheckpointer, openCheckpointer } from "./checkpoints/open-checkpointer.ts";
export type { Command, CommandContext, CommandResult } from "./commands/command.ts";
export type { AgentIdentity, TeamIdentities } from "./conversation/identity.ts";
export type { InboundMessage, OutboundMessage, PostedMessage } from "./conversation/messages.ts";
export { type ConversationRef, decodeConversationKey, encodeConversationKey } from "./conversation/ref.ts";
export { Engine, type EngineHealth, type EngineOptions } from "./engine/engine.ts";
export type { AcceptOutcome } from "./engine/intake.ts";
export type {
  Continuation,
  InterimMessages,
  Responder,
  Turn,
  TurnAnswer,
  TurnObserver,
} from "./engine/responder.ts";
export type { EngineSettings } from "./engine/settings.ts";
export { createMemory, type Memory } from "./memory/create-memory.ts";
export type { MemoryConfig } from "./memory/memory-config.ts";
export { createChatModel } from "./models/create-model.ts";
export type { ModelSpec } from "./models/spec.ts";
export { createObservability, type Observability } from "./observability/create-observability.ts";
export type { DeliveryOutcome } from "./outbox/work-outbox.ts";
export {
  type CreateRetryLaterOptions,
  createRetryLater,
  type RetryLater,
} from "./retry-later/create-retry-later.ts";
export { RequestTracking } from "./runs/request-tracking.ts";
export type { HttpConfig, RequestsConfig } from "./runs/runs-config.ts";
export { type Clock, systemClock } from "./runtime/clock.ts";
export { type Logger, silentLogger } from "./runtime/logger.ts";
export { createPinoLogger } from "./runtime/pino-logger.ts";
export {
  type CreateSchedulesOptions,
  createSchedules,
  type Schedules,
} from "./schedules/create-schedules.ts";
export { type SchedulesConfig, schedulesConfigSchema } from "./schedules/schedules-config.ts";
export type { RunSteps, StepSink } from "./steps/step-sink.ts";
export type { StepsConfig } from "./steps/steps-config.ts";
export { openStore } from "./store/open-store.ts";
export type { Store, StoreHealth } from "./store/types.ts";
export { createTasks, type Tasks } from "./tasks/create-tasks.ts";
export type { TasksConfig } from "./tasks/tasks-config.ts";
export { Team } from "./team/team.ts";
export type { FreshStartKind } from "./team/team-commands.ts";
export type { LimitsConfig, RoutingConfig, TeamConfig } from "./team/team-config.ts";
export type { TeamOptions } from "./team/team-options.ts";
export { createHttpTool } from "./tools/http-tool.ts";
export type { McpServerConfig } from "./tools/mcp/mcp-config.ts";
export { McpServers } from "./tools/mcp/mcp-servers.ts";
export { ToolCatalog } from "./tools/tool-catalog.ts";
export type { UsageConfig } from "./usage/usage-config.ts";
