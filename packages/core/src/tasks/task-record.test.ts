import { describe, expect, it } from "vitest";
import {
  applyControl,
  ended,
  stepStarting,
  type TaskControl,
  type TaskRecord,
  type TaskStatus,
  usedMs,
  waitingUntil,
} from "./task-record.ts";
import { queuedTask } from "./task-test-support.ts";

const base = queuedTask();

const record = (status: TaskStatus, extra: Partial<TaskRecord> = {}): TaskRecord => ({
  ...base,
  status,
  ...extra,
});
const control = (action: "pause" | "resume" | "cancel"): TaskControl => ({ action, by: "U1", at: 100 });

describe("a task's statuses", () => {
  it.each([
    ["queued", "pause", "paused"],
    ["running", "pause", "paused"],
    ["waiting", "pause", "paused"],
    ["paused", "resume", "running"],
    ["queued", "cancel", "cancelled"],
    ["running", "cancel", "cancelled"],
    ["paused", "cancel", "cancelled"],
  ] as const)("%s + %s → %s", (from, action, to) => {
    const outcome = applyControl(record(from, { iteration: 2 }), control(action), 100);
    expect("record" in outcome && outcome.record.status).toBe(to);
  });

  it.each([
    ["completed", "pause", "Task T-ABCDEF has already completed."],
    ["cancelled", "resume", "Task T-ABCDEF has already been cancelled."],
    ["failed", "cancel", "Task T-ABCDEF has already failed."],
    ["running", "resume", "Task T-ABCDEF is not paused (it is running)."],
    ["paused", "pause", "Task T-ABCDEF is already paused."],
  ] as const)("%s + %s is refused: %s", (from, action, sentence) => {
    expect(applyControl(record(from), control(action), 100)).toEqual({ refused: sentence });
  });

  it("never changes an ended task, whatever arrives (no completed after cancelled)", () => {
    const cancelled = ended(record("running"), "cancelled", 50);
    for (const action of ["pause", "resume", "cancel"] as const)
      expect(applyControl(cancelled, control(action), 100)).toHaveProperty("refused");
    expect(applyControl(cancelled, { action: "fail", by: "x", at: 1, reason: "stuck" }, 100)).toHaveProperty(
      "refused",
    );
  });

  it("a resumed task that never took a step is queued again, not running", () => {
    const outcome = applyControl(record("paused", { iteration: 0 }), control("resume"), 100);
    expect("record" in outcome && outcome.record.status).toBe("queued");
  });

  it("counts running time only: pauses and waits are not counted against the wall time", () => {
    let task = stepStarting(record("queued"), 1_000);
    expect(usedMs(task, 5_000)).toBe(4_000);
    const paused = applyControl(task, control("pause"), 5_000);
    if (!("record" in paused)) throw new Error("refused");
    expect(usedMs(paused.record, 99_000)).toBe(4_000);
    const resumed = applyControl(paused.record, control("resume"), 100_000);
    if (!("record" in resumed)) throw new Error("refused");
    task = resumed.record;
    expect(usedMs(task, 101_000)).toBe(5_000);
    const waiting = waitingUntil(task, 200_000, "model down", 102_000);
    expect(usedMs(waiting, 150_000)).toBe(6_000);
    expect(usedMs(stepStarting(waiting, 200_000), 201_000)).toBe(7_000);
  });

  it("steering keeps every piece of guidance, in order, for the next step", () => {
    const first = applyControl(record("running"), { action: "steer", by: "U1", at: 1, guidance: "a" }, 1);
    if (!("record" in first)) throw new Error("refused");
    const second = applyControl(first.record, { action: "steer", by: "U2", at: 2, guidance: "b" }, 2);
    expect("record" in second && second.record.pendingGuidance.map((g) => g.text)).toEqual(["a", "b"]);
  });
});
