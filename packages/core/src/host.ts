/**
 * @switchboard/core/host: what a program hosting a full deployment wires beyond the engine — the
 * sweepers and the drain scheduler of the scale-out roles, the HTTP server and webhook signing,
 * metrics, the model and tool catalogs, loggers. The switchboard CLI is its user; an embedding bot
 * rarely needs it.
 */

export { AccessGate } from "./access/access-gate.ts";
export { pairCommand } from "./access/pair-command.ts";
export { formatCode, type PairingApproval, Pairings, type PendingPairing } from "./access/pairings.ts";
export { AttachmentReader } from "./attachments/attachment-reader.ts";
export { BlobRetention, type BlobRetentionOptions } from "./attachments/blobs/blob-retention.ts";
export {
  type BlobRef,
  type BlobStore,
  blobId,
  parseBlobId,
  readBlob,
  spaceOf,
} from "./attachments/blobs/blob-store.ts";
export { openBlobStore } from "./attachments/blobs/open-blob-store.ts";
export { type WrittenBlob, writeBlob, writeBytes } from "./attachments/blobs/write-blob.ts";
export { CREATE_FILE, createFileTool } from "./attachments/create-file-tool.ts";
export { formatBytes, safeFileName } from "./attachments/safe-name.ts";
export type { ToolFiles } from "./attachments/tool-files.ts";
export type { EndpointState } from "./capacity/endpoint-limiter.ts";
export { type CatchUpSources, catchUp } from "./catch-up/catch-up.ts";
export { CATCH_UP, catchUpCommands, catchUpTool } from "./catch-up/catch-up-commands.ts";
export { delegateTo } from "./conversation/delegating-adapter.ts";
export type { ContinuationHandler } from "./engine/responder.ts";
export type { DrainScheduler, ScheduledDrainOutcome } from "./engine/serializer-types.ts";
export type { RecoveryReport } from "./health/recovery-loop.ts";
export { handToHumanTool, humanCommands } from "./humans/human-commands.ts";
export { HumanHandoffs } from "./humans/human-handoffs.ts";
export { Identities, IdentityConflictError } from "./learnings/identities.ts";
export { learningCommands } from "./learnings/learning-commands.ts";
export type { Learning } from "./learnings/learning-store.ts";
export { FORGET_LEARNING, Learnings, type ListedLearning, REMEMBER } from "./learnings/learnings.ts";
export type { ArchivedSession } from "./memory/archive/archive-store.ts";
export { IdleSweeper } from "./memory/idle-sweeper.ts";
export { SEARCH_MEMORY } from "./memory/search-tool.ts";
export { type EncryptionCounts, EncryptionMetrics } from "./metrics/encryption-metrics.ts";
export { RetryLaterMetrics } from "./metrics/retry-later-metrics.ts";
export { ScheduleMetrics } from "./metrics/schedule-metrics.ts";
export { StoreMetrics } from "./metrics/store-metrics.ts";
export { SwitchboardMetrics } from "./metrics/switchboard-metrics.ts";
export { TaskMetrics } from "./metrics/task-metrics.ts";
export { type WorkQueueCounts, WorkQueueMetrics } from "./metrics/work-queue-metrics.ts";
export { loadChatModelFactory, type ToolCallingChatModel } from "./models/create-model.ts";
export { describeModel } from "./models/describe.ts";
export { ModelEndpoints } from "./models/model-endpoints.ts";
export { type ModelCallPolicy, modelCallPolicy } from "./models/spec.ts";
export { GivenUpDeliveries } from "./outbox/given-up.ts";
export { type HttpServerOptions, startHttpServer } from "./runs/http-server.ts";
export { replyTargetOf } from "./runs/request-record.ts";
export { RequestSweeper } from "./runs/request-sweeper.ts";
export type { InitiatedAnswer, InitiatedRun } from "./runs/tracked-team.ts";
export { signWebhook } from "./runs/webhook-signature.ts";
export { createStreamLogger } from "./runtime/logger.ts";
export { componentLogger, type StructuredLogger } from "./runtime/pino-logger.ts";
export type { DigestSources } from "./schedules/digest-material.ts";
export type { FireQueue, ScheduleObserver } from "./schedules/schedule-firer.ts";
export type { PlaceForPosts } from "./schedules/schedule-maker.ts";
export type { InitiatedRunner } from "./schedules/schedule-runs.ts";
export { Situation, situationLine } from "./situation/situation.ts";
export { timezoneCommand } from "./situation/timezone-command.ts";
export { UserTimeZones } from "./situation/user-time-zones.ts";
export type { StoreHealth } from "./store/types.ts";
export type { TaskScheduler } from "./tasks/task-driver.ts";
export type { StepOutcome, TaskObserver } from "./tasks/task-runner.ts";
export { handoffTarget } from "./team/handoff.ts";
export { SUPERVISOR } from "./team/team-config.ts";
export { teamIdentities } from "./team/team-identities.ts";
export { unknownToolReferences } from "./team/tool-references.ts";
export type { McpServerState } from "./tools/mcp/mcp-server-link.ts";
export { describeMcpServer, mcpStatusLines } from "./tools/mcp/mcp-status.ts";
export type { CatalogEntry, ToolSource } from "./tools/tool-catalog.ts";
export { usageTable } from "./usage/format-usage.ts";
export { daysBetween } from "./usage/usage-book.ts";
