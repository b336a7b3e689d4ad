import { notStarted, type TaskRecord } from "./task-record.ts";

/** A queued task at its start, for tests; `overrides` set what a test is about. */
export function queuedTask(overrides: Partial<TaskRecord> = {}): TaskRecord {
  return {
    id: "T-ABCDEF",
    title: "t",
    instructions: "i",
    tools: [],
    agent: "research",
    home: { key: "slack:T:C:1", conversation: { platform: "slack", path: ["T", "C", "1"] }, messageId: "m" },
    requesterId: "U1",
    runId: "run-task-T-ABCDEF",
    ...notStarted(),
    maxIterations: 10,
    wallTimeMs: 600_000,
    createdAt: 0,
    updatedAt: 0,
    ...overrides,
  };
}
