import { MemorySaver } from "@langchain/langgraph";
import { createObservability, silentLogger } from "@switchboard/core";
import { stepsConfigSchema, usageConfigSchema } from "@switchboard/core/config";
import type { RunStep } from "@switchboard/core/records";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type TestStore, testStoreBackends } from "../packages/core/src/store/test-backends.ts";
import {
  MEMORY_TEST_KEY,
  MINUTE,
  manualClock,
  scriptedMemoryModel,
  scriptedTeamModel,
  startMemoryHarness,
} from "./support/memory-harness.ts";

/** USD per million tokens: 1,000 makes a call's cost its tokens ÷ 1,000. */
const PRICES = { FakeBuiltModel: { input: 1_000, output: 1_000 } };
/** Every flush call of the memory model, and every summary, report these. */
const FLUSH_TOKENS = { input: 100, output: 10 };
const SUMMARY_TOKENS = { input: 300, output: 30 };

const long = (label: string) => `${label} ${"detail ".repeat(80)}`;
const modelCalls = (steps: readonly RunStep[]) =>
  steps
    .filter((step) => step.kind === "model_call")
    .map((step) => ({
      agent: step.agent,
      inputTokens: step.inputTokens,
      outputTokens: step.outputTokens,
      costUsd: step.costUsd,
    }));

describe.each(testStoreBackends("memory-steps"))(
  "memory's model calls in the run-steps log, on %s",
  (_n, open) => {
    let opened: TestStore;
    beforeEach(async () => {
      opened = await open();
    });
    afterEach(async () => {
      await opened.store.close();
      await opened.cleanup();
    });

    it("records flushes, compaction summaries and archiving as memory runs with their tokens and cost", async () => {
      const clock = manualClock();
      const observability = createObservability({
        store: opened.store,
        steps: stepsConfigSchema.parse({}),
        usage: usageConfigSchema.parse({ prices: PRICES }),
        clock,
        logger: silentLogger,
      });
      const h = await startMemoryHarness({
        store: opened.store,
        storeUrl: "memory://",
        checkpointer: new MemorySaver(),
        clock,
        teamModel: scriptedTeamModel(() => long("answer")),
        memoryModel: scriptedMemoryModel({ tokens: FLUSH_TOKENS }),
        summaryModel: scriptedMemoryModel({ tokens: SUMMARY_TOKENS }),
        recorder: observability.memoryWork,
        // Turn 2 flushes; turn 3 is left for archiving to record. Three long turns pass the budget.
        config: { flushEvery: 4, historyTokenBudget: 600 },
      });
      for (const text of ["q1", "q2", "q3"]) {
        await h.say(long(text));
        await h.settle();
      }
      clock.advance(31 * MINUTE);
      expect(await h.memory.sweeper.sweep()).toHaveLength(1);
      await h.stop();
      await observability.flushed();

      const steps = observability.steps;
      if (!steps) throw new Error("the run-steps log is on by default");
      const runs = (await steps.runsOfConversation(MEMORY_TEST_KEY)).sort(
        (a, b) => a.startedAt - b.startedAt,
      );
      // Turn 1 only joins the session (no model, no tool, no failure): no run of its own.
      expect(runs.map((run) => run.trigger)).toEqual(["memory", "memory", "memory"]);
      const stepsOf = await Promise.all(runs.map((run) => steps.steps(run.runId)));
      const memoryStep = (all: readonly RunStep[]) => all.find((step) => step.kind === "memory");
      expect(stepsOf.map((all) => memoryStep(all))).toMatchObject([
        { control: "process_message_and_flush" },
        { control: "process_message" },
        { control: "archive", messages: 6 },
      ]);
      const flush = { agent: "memory", inputTokens: 100, outputTokens: 10, costUsd: 0.11 };
      const summary = { agent: "memory", inputTokens: 300, outputTokens: 30, costUsd: 0.33 };
      // Turn 2: the flush. Turn 3 joins the session and takes the history over budget: compaction's
      // summary. Archiving: the pending turn's flush, the summary.
      expect(stepsOf.map(modelCalls)).toEqual([[flush], [summary], [flush, summary]]);
      expect(runs.map((run) => run.status)).toEqual(["completed", "completed", "completed"]);
    });
  },
);
