export * from "./attachments/index.ts";
export * from "./checkpoints/index.ts";
export type { Command, CommandContext, CommandResult } from "./commands/command.ts";
export type {
  Adapter,
  AdapterCheck,
  AdapterLimits,
  AdapterStreaming,
  CommandSummary,
  InboundSink,
  NativeTextStream,
  PlaceNames,
  SendOnlyCheck,
} from "./conversation/adapter.ts";
export {
  type ApprovalAnswer,
  type ApprovalDecider,
  type ApprovalPress,
  type ApprovalPrompt,
  decisionLine,
} from "./conversation/approvals.ts";
export { delegateTo } from "./conversation/delegating-adapter.ts";
export {
  type AdapterAttachments,
  type AdapterFiles,
  type AttachmentBody,
  AttachmentFetchError,
  type FileMessage,
  type FileToSend,
  type InboundAttachment,
} from "./conversation/files.ts";
export type { Author, InboundMessage, OutboundMessage, PostedMessage } from "./conversation/messages.ts";
export { cachedPlaceLookup } from "./conversation/place-name-cache.ts";
export {
  type ConversationRef,
  decodeConversationKey,
  encodeConversationKey,
  InvalidConversationKeyError,
  sameConversation,
} from "./conversation/ref.ts";
export { chunkMarkdown } from "./delivery/chunk.ts";
export type { Deliverer, Delivery } from "./delivery/deliverer.ts";
export { type AcceptOutcome, Engine, type EngineHealth, type EngineOptions } from "./engine/engine.ts";
export type {
  Continuation,
  ContinuationHandler,
  Responder,
  Turn,
  TurnAnswer,
  TurnObserver,
} from "./engine/responder.ts";
export type { DrainScheduler, MidRunPolicy, ScheduledDrainOutcome } from "./engine/serializer.ts";
export { DEFAULT_ENGINE_SETTINGS, type EngineSettings } from "./engine/settings.ts";
export type { RecoveryReport } from "./health/recovery-loop.ts";
export * from "./memory/index.ts";
export * from "./metrics/index.ts";
export * from "./models/index.ts";
export * from "./observability/index.ts";
export * from "./outbox/index.ts";
export * from "./runs/index.ts";
export type { Clock } from "./runtime/clock.ts";
export { systemClock } from "./runtime/clock.ts";
export { TurnCancelledError, UserFacingError } from "./runtime/errors.ts";
export { currentLogContext, withLogContext } from "./runtime/log-context.ts";
export {
  createMemoryLogger,
  createStreamLogger,
  type Logger,
  type LogLevel,
  silentLogger,
} from "./runtime/logger.ts";
export {
  componentLogger,
  createPinoLogger,
  type PinoLoggerOptions,
  type StructuredLogger,
} from "./runtime/pino-logger.ts";
export { SecretRedactor } from "./runtime/redact.ts";
export * from "./steps/index.ts";
export * from "./store/index.ts";
export * from "./streaming/index.ts";
export * from "./tasks/index.ts";
export * from "./team/index.ts";
export * from "./tools/index.ts";
export * from "./usage/index.ts";
