export {
  type AccessConfig,
  type AccessConfigInput,
  accessConfigSchema,
  DM_ACCESS_MODES,
  GROUP_ACCESS_MODES,
  type PlatformAccess,
  platformAccessSchema,
} from "./access-config.ts";
export { AccessGate, type AccessPlace, type AccessVerdict } from "./access-gate.ts";
export { type AccessDecision, type AccessFacts, decideAccess } from "./access-policy.ts";
export { pairCommand } from "./pair-command.ts";
export {
  type ApproveOutcome,
  formatCode,
  normalizeCode,
  type PairingApproval,
  Pairings,
  type PendingPairing,
} from "./pairings.ts";
