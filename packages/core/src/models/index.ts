export type { CallOutcome, EndpointCaps, EndpointState } from "../capacity/endpoint-limiter.ts";
export {
  type ChatModelFactory,
  type ChatModelFactoryOptions,
  type CreateChatModelDeps,
  createChatModel,
  loadChatModelFactory,
  type ToolCallingChatModel,
} from "./create-model.ts";
export { describeModel } from "./describe.ts";
export {
  DEFAULT_MODEL_ENDPOINTS_CONFIG,
  endpointOf,
  ModelEndpoints,
  type ModelEndpointsConfig,
  modelEndpointsConfigSchema,
} from "./model-endpoints.ts";
export {
  OfflineChatModel,
  type OfflineChatModelCallOptions,
  type OfflineChatModelOptions,
  type OfflineTool,
} from "./offline-model.ts";
export { agentNameFromSystemPrompt, HANDOFF_TOOL_PREFIX, pickHandoffTool } from "./offline-routing.ts";
export {
  attemptTimeoutReason,
  invokeWithRetry,
  type ModelCallLimits,
  type ModelRetryEvent,
  type ModelRetryOptions,
  ModelUnavailableError,
  RetryingChatModel,
  withModelRetry,
} from "./retry.ts";
export { classifyModelError, type ModelFailureKind, type RetryableFailure } from "./retry-policy.ts";
export {
  apiKeyEnvVar,
  DEFAULT_FIRST_TOKEN_TIMEOUT_SECONDS,
  DEFAULT_MODEL_CALL_POLICY,
  DEFAULT_MODEL_TIMEOUT_SECONDS,
  MODEL_PROVIDERS,
  type ModelCallPolicy,
  ModelConfigError,
  type ModelProvider,
  type ModelSpec,
  modelCallPolicy,
  modelRetryOptions,
  modelSpecSchema,
  parseModelSpec,
  parseModelString,
} from "./spec.ts";
