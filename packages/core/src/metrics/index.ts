export { SwitchboardMetrics } from "./switchboard-metrics.ts";
