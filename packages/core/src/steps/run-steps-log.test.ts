import { afterEach, describe, expect, it, vi } from "vitest";
import { silentLogger } from "../runtime/logger.ts";
import { openStore } from "../store/open-store.ts";
import { fakeClock, testStoreBackends } from "../store/test-backends.ts";
import type { Store } from "../store/types.ts";
import type { StepDetail } from "./run-step.ts";
import { RunStepsLog } from "./run-steps-log.ts";
import { StepRecorder } from "./step-recorder.ts";

const KEY = "slack:T1:C1:1700.1";
const HOUR = 3_600_000;

const modelCall = (agent: string, inputTokens: number, outputTokens: number, costUsd = 0): StepDetail => ({
  kind: "model_call",
  agent,
  model: "gpt-4o-mini",
  startedAt: 0,
  endedAt: 5,
  latencyMs: 5,
  inputTokens,
  outputTokens,
  cachedTokens: 0,
  costUsd,
});

async function withStore(
  open: () => Promise<{ store: Store; cleanup(): Promise<void> }>,
  test: (store: Store) => Promise<void>,
) {
  const { store, cleanup } = await open();
  try {
    await test(store);
  } finally {
    await store.close();
    await cleanup();
  }
}

describe.each(testStoreBackends("run-steps"))("RunStepsLog on %s", (_name, open) => {
  it("keeps a run's steps in order with its totals, and lists runs per conversation and by time", () =>
    withStore(open, async (store) => {
      const clock = fakeClock(Date.UTC(2026, 10, 23, 10));
      const log = new RunStepsLog(store, { retentionDays: 14, clock });
      await log.startRun({
        runId: "r1",
        conversationKey: KEY,
        requestId: "q1",
        userId: "U1",
        trigger: "user_message",
      });
      await log.record("r1", modelCall("supervisor", 100, 10, 0.001));
      await log.record("r1", { kind: "handoff", from: "supervisor", to: "billing" });
      await log.record("r1", modelCall("billing", 200, 20, 0.002));
      await log.finishRun("r1", "completed");
      await clock.advance(2 * HOUR);
      await log.startRun({
        runId: "r2",
        conversationKey: KEY,
        requestId: "q2",
        userId: "U1",
        trigger: "user_message",
      });
      await log.record("r2", modelCall("billing", 50, 5));
      await log.finishRun("r2", "failed", { error: "boom" });
      await clock.advance(1);
      await log.startRun({ runId: "r3", conversationKey: "slack:T1:C9:1.1", trigger: "user_message" });

      const steps = await log.steps("r1");
      expect(steps.map((step) => [step.seq, step.kind])).toEqual([
        [0, "model_call"],
        [1, "handoff"],
        [2, "model_call"],
      ]);
      expect(await log.run("r1")).toMatchObject({
        status: "completed",
        agents: ["supervisor", "billing"],
        modelCalls: 2,
        inputTokens: 300,
        outputTokens: 30,
        requestId: "q1",
      });
      expect((await log.run("r1"))?.costUsd).toBeCloseTo(0.003);
      expect((await log.runsOfConversation(KEY)).map((run) => [run.runId, run.status])).toEqual([
        ["r2", "failed"],
        ["r1", "completed"],
      ]);
      const start = Date.UTC(2026, 10, 23, 10);
      expect((await log.runsBetween(start, start + HOUR)).map((run) => run.runId)).toEqual(["r1"]);
      expect((await log.runsBetween(start, start + 3 * HOUR)).map((run) => run.runId)).toEqual([
        "r3",
        "r2",
        "r1",
      ]);
      expect(await log.steps("unknown")).toEqual([]);
    }));

  it("merges what two processes appended to the same conversation and run", () =>
    withStore(open, async (store) => {
      const clock = fakeClock(Date.UTC(2026, 10, 23, 10));
      const first = new RunStepsLog(store, { retentionDays: 14, clock, writerId: "a" });
      const second = new RunStepsLog(store, { retentionDays: 14, clock, writerId: "b" });
      await Promise.all([
        first.startRun({ runId: "r1", conversationKey: KEY, trigger: "user_message" }),
        second.startRun({ runId: "r2", conversationKey: KEY, trigger: "memory" }),
      ]);
      await first.record("r1", modelCall("supervisor", 1, 1));
      await clock.advance(10);
      await second.record("r1", {
        kind: "delivery",
        platform: "slack",
        chunks: 1,
        messageIds: ["m1"],
        latencyMs: 3,
      });
      expect((await first.runsOfConversation(KEY)).map((run) => run.runId).sort()).toEqual(["r1", "r2"]);
      expect((await second.steps("r1")).map((step) => step.kind)).toEqual(["model_call", "delivery"]);
    }));
});

describe("RunStepsLog retention", () => {
  afterEach(() => vi.useRealTimers());

  it("forgets runs and steps once the retention period has passed", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const start = Date.UTC(2026, 10, 1);
    vi.setSystemTime(start);
    let now = start;
    const store = await openStore("memory://", { now: () => now });
    try {
      const clock = { now: () => now };
      const log = new RunStepsLog(store, { retentionDays: 1, clock });
      await log.startRun({ runId: "old", conversationKey: KEY, trigger: "user_message" });
      await log.record("old", modelCall("supervisor", 1, 1));
      await log.finishRun("old", "completed");
      now = start + 25 * HOUR;
      vi.setSystemTime(now);
      expect(await log.run("old")).toBeUndefined();
      expect(await log.steps("old")).toEqual([]);
      expect(await log.runsOfConversation(KEY)).toEqual([]);
    } finally {
      await store.close();
    }
  });
});

describe("a team run run again (a crash, a later try)", () => {
  it("goes on with the totals its first attempt recorded, and is listed once", async () => {
    const store = await openStore("memory:");
    try {
      const clock = fakeClock(Date.UTC(2026, 10, 23, 10));
      const log = new RunStepsLog(store, { retentionDays: 14, clock });
      const recorder = new StepRecorder({ log, clock, logger: silentLogger });
      const context = { key: KEY, userId: "U1", runId: "r1", trigger: "user_message" };
      const run = { runId: "r1", conversationKey: KEY, userId: "U1", trigger: "user_message" };
      recorder.teamRun(context);
      recorder.record(run, modelCall("supervisor", 100, 0));
      await recorder.flushed();
      await log.finishRun("r1", "failed", { error: "the provider is down" });
      recorder.teamRun({ ...context, resumed: true });
      recorder.record(run, modelCall("supervisor", 120, 10));
      await recorder.flushed();
      await log.finishRun("r1", "completed");
      const [listed, ...more] = await log.runsOfConversation(KEY);
      expect(more).toEqual([]);
      expect(listed).toEqual(
        expect.objectContaining({ runId: "r1", status: "completed", modelCalls: 2, inputTokens: 220 }),
      );
    } finally {
      await store.close();
    }
  });
});
