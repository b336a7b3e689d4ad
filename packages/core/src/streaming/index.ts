export { closeOpenFence, previewText } from "./preview-text.ts";
export { StreamRecords, streamTurnId } from "./stream-records.ts";
export { adapterStreaming, type StreamingSettings, streamingConfigFields } from "./streaming-config.ts";
export { type ReplySurface, StreamingReply, type StreamingReplyOptions } from "./streaming-reply.ts";
export { handoffProgress, type TurnEvent, type TurnEventListener, toolProgress } from "./turn-events.ts";
