export { SwitchboardMetrics } from "./switchboard-metrics.ts";
export { type WorkQueueCounts, WorkQueueMetrics } from "./work-queue-metrics.ts";
