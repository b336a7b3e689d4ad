/**
 * @switchboard/core/adapter: the contract a platform adapter implements (Adapter and the messages it
 * exchanges with the engine), conversation keys, approval controls, and the helpers every adapter
 * shares (chunking, streaming settings, place-name caching, retry with backoff, the `fetch` for
 * platform SDKs). See docs/how-to/write-platform-adapter.md.
 */
export { ExpiredFileLinkError, fetchPlatformFile } from "./attachments/platform-fetch.ts";
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
export {
  type AdapterAttachments,
  type AdapterFiles,
  type AttachmentBody,
  AttachmentFetchError,
  type FileMessage,
  type FileToSend,
  type InboundAttachment,
} from "./conversation/files.ts";
export {
  type AgentIdentity,
  isEmojiIcon,
  type TeamIdentities,
  withNamePrefix,
} from "./conversation/identity.ts";
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
export { requestFetch } from "./http/request-fetch.ts";
export type { EncryptionCounts } from "./metrics/encryption-metrics.ts";
export {
  type BackoffPolicy,
  type RetryWithBackoffOptions,
  retryWithBackoff,
} from "./retry/retry-with-backoff.ts";
export { type Logger, silentLogger } from "./runtime/logger.ts";
export type { Store, StoreHealth } from "./store/types.ts";
export {
  adapterStreaming,
  type StreamingSettings,
  streamingConfigFields,
} from "./streaming/streaming-config.ts";
