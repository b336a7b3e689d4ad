import { describe, expect, it } from "vitest";
import { silentLogger } from "../runtime/logger.ts";
import { stepsConfigSchema } from "../steps/steps-config.ts";
import { openStore } from "../store/open-store.ts";
import { usageConfigSchema } from "../usage/usage-config.ts";
import { createObservability } from "./create-observability.ts";

const KEY = "test:dm-1";

async function observed() {
  const store = await openStore("memory://");
  let now = 1_000;
  const observability = createObservability({
    store,
    steps: stepsConfigSchema.parse({}),
    usage: usageConfigSchema.parse({}),
    clock: { now: () => now },
    logger: silentLogger,
  });
  const work = observability.memoryWork;
  const steps = observability.steps;
  if (!work || !steps) throw new Error("the run-steps log is on by default");
  const runs = async () => {
    await observability.flushed();
    return steps.runsOfConversation(KEY);
  };
  return { work, steps, runs, advance: (ms: number) => (now += ms), close: () => store.close() };
}

describe("memory's work in the run-steps log", () => {
  it("lists no run for a turn that only joined its session", async () => {
    const o = await observed();
    o.work.begin(KEY, "u1").finish({ control: "process_message", messages: 2, latencyMs: 3, routine: true });
    expect(await o.runs()).toEqual([]);
    await o.close();
  });

  it("lists a routine turn that failed, with its error", async () => {
    const o = await observed();
    o.work.begin(KEY, "u1").finish({
      control: "process_message",
      messages: 2,
      latencyMs: 3,
      routine: true,
      error: new Error("the store is unreachable"),
    });
    const [run] = await o.runs();
    expect(run).toMatchObject({ trigger: "memory", status: "failed", error: "the store is unreachable" });
    expect(await o.steps.steps(run?.runId ?? "")).toMatchObject([
      { kind: "memory", control: "process_message", error: "the store is unreachable" },
    ]);
    await o.close();
  });

  it("lists a routine turn that called a model, started when the work began", async () => {
    const o = await observed();
    const work = o.work.begin(KEY, "u1");
    o.advance(50);
    work.steps.step({
      kind: "model_call",
      agent: "memory",
      model: "m",
      startedAt: 1_050,
      endedAt: 1_060,
      latencyMs: 10,
      inputTokens: 5,
      outputTokens: 1,
      cachedTokens: 0,
    });
    work.finish({ control: "process_message", messages: 2, latencyMs: 60, routine: true });
    const [run] = await o.runs();
    expect(run).toMatchObject({ trigger: "memory", status: "completed", startedAt: 1_000, modelCalls: 1 });
    expect((await o.steps.steps(run?.runId ?? "")).map((step) => step.kind)).toEqual([
      "model_call",
      "memory",
    ]);
    await o.close();
  });

  it("lists other memory work whatever it did (an archive with no model)", async () => {
    const o = await observed();
    o.work.begin(KEY, "u1").finish({ control: "archive", messages: 6, latencyMs: 4 });
    expect((await o.runs()).map((run) => run.status)).toEqual(["completed"]);
    await o.close();
  });
});
