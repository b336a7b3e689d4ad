/**
 * @switchboard/core/config: the zod schemas of every configuration section core owns, with their
 * defaults and parsed types, and the parsers of model and store URLs. A host validates its
 * configuration once with these (the switchboard CLI's switchboard.yaml is built from them) and
 * passes the parsed values down.
 */
export {
  type AccessConfig,
  type AccessConfigInput,
  accessConfigSchema,
  type PlatformAccess,
} from "./access/access-config.ts";
export { type AttachmentsConfig, attachmentsConfigSchema } from "./attachments/attachments-config.ts";
export { ACCEPTED_CHECKPOINTER_URLS } from "./checkpoints/errors.ts";
export { DEFAULT_ENGINE_SETTINGS, type EngineSettings } from "./engine/settings.ts";
export { type MemoryConfig, type MemoryConfigInput, memoryConfigSchema } from "./memory/memory-config.ts";
export { modelEndpointsConfigSchema } from "./models/model-endpoints.ts";
export {
  apiKeyEnvVar,
  ModelConfigError,
  type ModelSpec,
  modelSpecSchema,
  parseModelSpec,
  parseModelString,
} from "./models/spec.ts";
export {
  type HttpConfig,
  httpConfigSchema,
  type RequestsConfig,
  requestsConfigSchema,
} from "./runs/runs-config.ts";
export { isTimeZone } from "./schedules/schedule-time.ts";
export {
  type DeclaredSchedule,
  declaredScheduleSchema,
  type SchedulesConfig,
  type SchedulesConfigInput,
  schedulesConfigSchema,
} from "./schedules/schedules-config.ts";
export { type StepsConfig, stepsConfigSchema } from "./steps/steps-config.ts";
export { ACCEPTED_STORE_URLS, parseStoreUrl } from "./store/store-url.ts";
export { type TasksConfig, tasksConfigSchema } from "./tasks/tasks-config.ts";
export {
  type HumansConfig,
  humansConfigSchema,
  type LimitsConfig,
  limitsConfigSchema,
  type RoutingConfig,
  routingConfigSchema,
  type TeamConfig,
  teamConfigSchema,
} from "./team/team-config.ts";
export { httpToolConfigSchema } from "./tools/http-tool.ts";
export type { ParametersSchema } from "./tools/http-tool-parameters.ts";
export { type McpServerConfig, mcpConfigSchema, mcpServerConfigSchema } from "./tools/mcp/mcp-config.ts";
export {
  DEFAULT_USAGE_CONFIG,
  type UsageConfig,
  type UsageConfigInput,
  usageConfigSchema,
} from "./usage/usage-config.ts";
