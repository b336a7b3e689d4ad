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
