import { openStore, type Store } from "@switchboard/core";
import { RunStepsLog, UsageBook } from "@switchboard/core/records";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { stepsFromLog } from "./steps-from-log.ts";
import { usageFromBook } from "./usage-from-book.ts";

const DAY = Date.UTC(2026, 10, 23, 12);
const clock = { now: () => DAY };
let store: Store;
beforeEach(async () => {
  store = await openStore("memory://");
});
afterEach(async () => {
  await store.close();
});

describe("the console's view of the run-steps log and the usage roll-ups", () => {
  it("shows a run's model calls, handoff and tool call in order, without memory work", async () => {
    const log = new RunStepsLog(store, { retentionDays: 7, clock });
    await log.startRun({ runId: "run-1", conversationKey: "web:s:main", trigger: "user_message" });
    const model = { model: "scripted", startedAt: DAY, endedAt: DAY + 40, latencyMs: 40, cachedTokens: 0 };
    await log.record("run-1", {
      kind: "model_call",
      agent: "supervisor",
      inputTokens: 120,
      outputTokens: 8,
      ...model,
    });
    await log.record("run-1", { kind: "handoff", from: "supervisor", to: "billing" });
    await log.record("run-1", {
      kind: "tool_call",
      agent: "billing",
      tool: "refund",
      argsDigest: "abc",
      startedAt: DAY + 50,
      endedAt: DAY + 70,
      latencyMs: 20,
      outcome: "error",
      error: "refused",
    });
    await log.record("run-1", { kind: "memory", control: "PROCESS_MESSAGE", messages: 2, latencyMs: 3 });
    const steps = await stepsFromLog(log).stepsOfRun("run-1");
    expect(steps.map((step) => step.kind)).toEqual(["model", "handoff", "tool"]);
    expect(steps[0]).toMatchObject({ agent: "supervisor", latencyMs: 40, inputTokens: 120, outputTokens: 8 });
    expect(steps[1]).toMatchObject({ from: "supervisor", to: "billing" });
    expect(steps[2]).toMatchObject({ tool: "refund", error: "refused" });
    expect(await stepsFromLog(log).stepsOfRun("no-such-run")).toEqual([]);
  });

  it("sums each day over its agents, zero days included, and ranks agents, models, conversations and users", async () => {
    const book = new UsageBook(store, { retentionDays: 30, clock });
    const call = (at: number, agent: string, userId: string, input: number, cost: number) =>
      book.record({
        at,
        conversationKey: `web:s:${userId}`,
        userId,
        agent,
        model: "gpt-x",
        inputTokens: input,
        outputTokens: 10,
        cachedTokens: 0,
        costUsd: cost,
      });
    await call(DAY, "supervisor", "ana", 100, 0.01);
    await call(DAY, "billing", "ana", 300, 0.03);
    await call(DAY - 2 * 86_400_000, "billing", "ben", 50, 0.005);
    await book.flushed();
    const report = await usageFromBook(book, clock.now).report(7);
    expect(report.days.map((day) => [day.label, day.inputTokens, day.calls])).toEqual([
      ["2026-11-17", 0, 0],
      ["2026-11-18", 0, 0],
      ["2026-11-19", 0, 0],
      ["2026-11-20", 0, 0],
      ["2026-11-21", 50, 1],
      ["2026-11-22", 0, 0],
      ["2026-11-23", 400, 2],
    ]);
    expect(report.byAgent.map((row) => [row.label, row.inputTokens])).toEqual([
      ["billing", 350],
      ["supervisor", 100],
    ]);
    expect(report.topUsers.map((row) => row.label)).toEqual(["ana", "ben"]);
    expect(report.byModel).toHaveLength(1);
    expect(report.topConversations[0]?.label).toBe("web:s:ana");
    expect((await usageFromBook(book, clock.now).report(1)).days.map((day) => day.inputTokens)).toEqual([
      400,
    ]);
  });
});
