export { RetryLaterMetrics } from "./retry-later-metrics.ts";
export { ScheduleMetrics } from "./schedule-metrics.ts";
export { StoreMetrics } from "./store-metrics.ts";
export { SwitchboardMetrics } from "./switchboard-metrics.ts";
export { TaskMetrics } from "./task-metrics.ts";
export { type Leading, type WorkQueueCounts, WorkQueueMetrics } from "./work-queue-metrics.ts";
