export { type ActiveAgent, ActiveAgentStore } from "./active-agents.ts";
export { handoffTarget, handoffToolName } from "./handoff.ts";
export { pairToolCalls, textOf } from "./history.ts";
export { TeamLimitError } from "./limits.ts";
export { approvalPrompt, outcomeText, type RunInput, type RunOutcome } from "./run-outcome.ts";
export { Team } from "./team.ts";
export type { AgentSummary, FreshStartKind } from "./team-commands.ts";
export {
  HUMAN,
  type HumansConfig,
  humansConfigSchema,
  type LimitsConfig,
  limitsConfigSchema,
  type RoutingConfig,
  routingConfigSchema,
  type SpecialistConfig,
  SUPERVISOR,
  type TeamConfig,
  teamConfigSchema,
} from "./team-config.ts";
export type { ApprovalDecision, ApprovalRequest } from "./team-graph.ts";
export type { TeamOptions } from "./team-options.ts";
export { acceptsIdempotencyKey, UNKNOWN_OUTCOME } from "./tool-calls.ts";
export { UnknownToolError, unknownToolReferences } from "./tool-references.ts";
