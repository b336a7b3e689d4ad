// Pieces of the runtime that end-to-end tests and benchmarks drive directly.
export { LiveSessions } from "../memory/active-sessions.ts";
export type { MemoryWorkRecorder } from "../memory/memory-work.ts";
export { extractiveSummary } from "../memory/summarize.ts";
export { createMemoryLogger } from "../runtime/logger.ts";
export { UNKNOWN_OUTCOME } from "../team/tool-calls.ts";
export {
  type AdapterHarness,
  type ObservedPost,
  runAdapterContract,
  type SimulatedMessage,
  type SimulatedPlace,
} from "./adapter-contract.ts";
export { RecordingAdapter } from "./recording-adapter.ts";
export { echoResponder, longAnswerPieces, scriptedResponder, streamedAnswer } from "./responders.ts";
export { waitFor } from "./wait.ts";
