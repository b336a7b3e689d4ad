export * from "./checkpoints/index.ts";
export type { Command, CommandContext, CommandResult } from "./commands/command.ts";
export type { Adapter, AdapterLimits, InboundSink } from "./conversation/adapter.ts";
export type { Author, InboundMessage, OutboundMessage, PostedMessage } from "./conversation/messages.ts";
export {
  type ConversationRef,
  decodeConversationKey,
  encodeConversationKey,
  InvalidConversationKeyError,
  sameConversation,
} from "./conversation/ref.ts";
export { chunkMarkdown } from "./delivery/chunk.ts";
export type { Deliverer, Delivery } from "./delivery/deliverer.ts";
export { type AcceptOutcome, Engine, type EngineOptions } from "./engine/engine.ts";
export type {
  Continuation,
  ContinuationHandler,
  Responder,
  Turn,
  TurnAnswer,
  TurnObserver,
} from "./engine/responder.ts";
export type { MidRunPolicy } from "./engine/serializer.ts";
export { DEFAULT_ENGINE_SETTINGS, type EngineSettings } from "./engine/settings.ts";
export * from "./memory/index.ts";
export * from "./models/index.ts";
export * from "./runs/index.ts";
export type { Clock } from "./runtime/clock.ts";
export { systemClock } from "./runtime/clock.ts";
export { TurnCancelledError, UserFacingError } from "./runtime/errors.ts";
export {
  createMemoryLogger,
  createStreamLogger,
  type Logger,
  type LogLevel,
  silentLogger,
} from "./runtime/logger.ts";
export * from "./store/index.ts";
export * from "./team/index.ts";
export * from "./tools/index.ts";
