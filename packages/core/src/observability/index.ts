export {
  createObservability,
  type Observability,
  type ObservabilityOptions,
} from "./create-observability.ts";
export { logListener } from "./log-listener.ts";
export { ObservedResponder } from "./observed-responder.ts";
