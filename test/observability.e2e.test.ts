import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encodeConversationKey, openStore, type Store } from "@switchboard/core";
import type { RunStep } from "@switchboard/core/records";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { testContext } from "../packages/cli/src/cli-test-context.ts";
import { runCli } from "../packages/cli/src/run-cli.ts";
import {
  removeRedisKeys,
  TEST_REDIS_URL,
  uniqueRedisPrefix,
} from "../packages/core/src/store/test-backends.ts";
import { reply, scriptedUsageModel, startObservabilityHarness } from "./support/observability-harness.ts";

const KEY = encodeConversationKey({ platform: "test", path: ["dm-1"] });
/** Prices making the arithmetic readable: $1,000 per million tokens either way = $0.001 a token. */
const PRICES = { FakeBuiltModel: { input: 1_000, output: 1_000 } };

/** A handoff turn, a sticky follow-up with a tool run: 700 tokens in, 70 out. */
const SCRIPT = [
  reply("", { input: 100, output: 10 }, [{ name: "transfer_to_billing" }]),
  reply("I see a double charge.", { input: 200, output: 20, cached: 50 }),
  reply("", { input: 150, output: 15 }, [{ name: "lookup_invoice", args: { number: "42" } }]),
  reply("The refund of invoice 42 is pending.", { input: 250, output: 25 }),
];

const shape = (steps: readonly RunStep[]) =>
  steps.map((step) => {
    switch (step.kind) {
      case "model_call":
        return `model ${step.agent} ${step.inputTokens}/${step.outputTokens}`;
      case "handoff":
        return `handoff ${step.from}→${step.to}`;
      case "tool_call":
        return `tool ${step.tool} ${step.outcome}`;
      case "delivery":
        return `delivery ${step.chunks}`;
      default:
        return step.kind;
    }
  });

const backends: Array<[string, () => Promise<{ store: Store; url: string; cleanup(): Promise<void> }>]> = [
  [
    "sqlite",
    async () => {
      const dir = await mkdtemp(join(tmpdir(), "sb-observe-"));
      const url = `sqlite://${join(dir, "s.db")}`;
      return { store: await openStore(url), url, cleanup: () => rm(dir, { recursive: true, force: true }) };
    },
  ],
  [
    "redis",
    async () => {
      const prefix = uniqueRedisPrefix("observe");
      const url = `${TEST_REDIS_URL}/?prefix=${prefix}`;
      return { store: await openStore(url), url, cleanup: async () => void (await removeRedisKeys(prefix)) };
    },
  ],
];

describe.each(backends)("what a turn did and cost, on %s", (_name, open) => {
  let opened: Awaited<ReturnType<(typeof backends)[number][1]>>;
  beforeEach(async () => {
    opened = await open();
  });
  afterEach(async () => {
    await opened.store.close();
    await opened.cleanup();
  });

  it("records the steps of a handoff turn and a sticky follow-up with a tool run, in order, with their tokens and cost", async () => {
    const model = scriptedUsageModel(SCRIPT);
    const h = await startObservabilityHarness({ store: opened.store, model, usage: { prices: PRICES } });
    expect(await h.say("I was charged twice")).toEqual(["I see a double charge."]);
    expect(await h.say("when will the refund arrive?")).toEqual(["The refund of invoice 42 is pending."]);
    const steps = h.observability.steps;
    if (!steps) throw new Error("the steps log is on by default");

    const runs = await steps.runsOfConversation(KEY);
    expect(runs.map((run) => [run.trigger, run.status, run.agents.join(",")])).toEqual([
      ["user_message", "completed", "billing"],
      ["user_message", "completed", "supervisor,billing"],
    ]);
    const [followUp, first] = runs;
    expect(shape(await steps.steps(first?.runId ?? ""))).toEqual([
      "model supervisor 100/10",
      "handoff supervisor→billing",
      "model billing 200/20",
      "delivery 1",
    ]);
    expect(shape(await steps.steps(followUp?.runId ?? ""))).toEqual([
      "model billing 150/15",
      "tool lookup_invoice ok",
      "model billing 250/25",
      "delivery 1",
    ]);
    expect(first).toMatchObject({ modelCalls: 2, inputTokens: 300, outputTokens: 30, cachedTokens: 50 });
    expect(first?.costUsd).toBeCloseTo(0.33);
    expect(first?.requestId).toMatch(/\S/);
    const call = (await steps.steps(first?.runId ?? "")).find((step) => step.kind === "model_call");
    expect(call).toMatchObject({ model: "FakeBuiltModel", finishReason: "tool_calls" });
    const tool = (await steps.steps(followUp?.runId ?? "")).find((step) => step.kind === "tool_call");
    expect(tool).toMatchObject({ argsDigest: expect.stringMatching(/^[0-9a-f]{12}$/) });
    // Recorded by the calls themselves: the run carries no LangChain callback handler, which would
    // make LangChain build callback managers and run ids for every runnable step of every turn.
    expect(h.toolCallbacks).toEqual([undefined]);
    expect((await steps.runsBetween(Date.now() - 60_000, Date.now() + 1)).map((run) => run.runId)).toEqual(
      runs.map((run) => run.runId),
    );

    // /usage sums this conversation: 4 calls, 700 in, 70 out, $0.77.
    const [usage] = await h.say("/usage");
    expect(usage).toContain("today (UTC): 4 model calls, 700 tokens in (50 cached), 70 out, $0.77");
    await h.stop();

    // The CLI reads the same roll-ups from the store.
    const dir = await mkdtemp(join(tmpdir(), "sb-usage-cli-"));
    try {
      await writeFile(join(dir, "switchboard.yaml"), `store: "${opened.url}"\n`);
      const { context, stdout, stderr } = testContext({ cwd: dir });
      expect(await runCli(["usage", "--days", "1"], context)).toBe(0);
      expect(stderr.text).toBe("");
      expect(stdout.text).toMatch(
        /model\s+calls\s+tokens in\s+tokens out\s+cost\nFakeBuiltModel\s+4\s+700\s+70\s+\$0\.77/,
      );
      expect(stdout.text).toMatch(/billing\s+3\s+600\s+60\s+\$0\.66/);
      expect(stdout.text).toMatch(/user-1\s+4\s+700\s+70\s+\$0\.77/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("records a run whose model call fails as failed, with the failed call and its error", async () => {
    const model = scriptedUsageModel([]);
    model.respond(new Error("the provider refused the request"));
    const h = await startObservabilityHarness({ store: opened.store, model });
    await h.say("I was charged twice");
    const steps = h.observability.steps;
    if (!steps) throw new Error("the steps log is on by default");
    const [run] = await steps.runsOfConversation(KEY);
    expect(run).toMatchObject({ status: "failed", error: "Error: the provider refused the request" });
    const recorded = await steps.steps(run?.runId ?? "");
    expect(recorded.filter((step) => step.kind === "model_call")).toEqual([
      expect.objectContaining({
        agent: "supervisor",
        model: "FakeBuiltModel",
        inputTokens: 0,
        error: "Error: the provider refused the request",
      }),
    ]);
    await h.stop();
  });

  it("a user over the daily limit gets one sentence and no model call is made", async () => {
    const model = scriptedUsageModel(SCRIPT);
    const h = await startObservabilityHarness({
      store: opened.store,
      model,
      usage: { prices: PRICES, limits: { perUserPerDay: { tokens: 700 } } },
    });
    await h.say("I was charged twice");
    await h.say("when will the refund arrive?");
    const calls = model.callCount;
    expect(await h.say("and one more thing")).toEqual([
      "You have used your daily allowance (700 tokens); it renews at 00:00 UTC.",
    ]);
    expect(model.callCount).toBe(calls);
    // Another user is not held to it.
    const other = await h.say("hello", "user-2");
    expect(other.join("\n")).not.toContain("allowance");
    await h.stop();
  });
});

describe.each(backends)("a model with no price, on %s", (_name, open) => {
  let opened: Awaited<ReturnType<(typeof backends)[number][1]>>;
  beforeEach(async () => {
    opened = await open();
  });
  afterEach(async () => {
    await opened.store.close();
    await opened.cleanup();
  });

  it("is shown at an unknown cost in /usage and the CLI, and a cost cap does not refuse on a guess", async () => {
    const model = scriptedUsageModel(SCRIPT);
    // FakeBuiltModel has no price: $0.01 a day would be over after one call at any guessed rate.
    const h = await startObservabilityHarness({
      store: opened.store,
      model,
      usage: { limits: { perUserPerDay: { costUsd: 0.01 } } },
    });
    expect(await h.say("I was charged twice")).toEqual(["I see a double charge."]);
    expect(await h.say("when will the refund arrive?")).toEqual(["The refund of invoice 42 is pending."]);
    const [usage] = await h.say("/usage");
    expect(usage).toContain(
      "today (UTC): 4 model calls, 700 tokens in (50 cached), 70 out, cost unknown (no price for the model)",
    );
    await h.stop();

    const dir = await mkdtemp(join(tmpdir(), "sb-unpriced-cli-"));
    try {
      await writeFile(join(dir, "switchboard.yaml"), `store: "${opened.url}"\n`);
      const { context, stdout } = testContext({ cwd: dir });
      expect(await runCli(["usage", "--days", "1"], context)).toBe(0);
      expect(stdout.text).toMatch(/FakeBuiltModel\s+4\s+700\s+70\s+unknown/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("priced in usage.prices, the same cap refuses once it is reached", async () => {
    const model = scriptedUsageModel(SCRIPT);
    const h = await startObservabilityHarness({
      store: opened.store,
      model,
      usage: { prices: PRICES, limits: { perUserPerDay: { costUsd: 0.01 } } },
    });
    await h.say("I was charged twice");
    const calls = model.callCount;
    expect(await h.say("when will the refund arrive?")).toEqual([
      "You have used your daily allowance ($0.01); it renews at 00:00 UTC.",
    ]);
    expect(model.callCount).toBe(calls);
    await h.stop();
  });
});

describe("metrics and logs", () => {
  let store: Store;
  beforeEach(async () => {
    store = await openStore("memory://");
  });
  afterEach(async () => {
    await store.close();
  });

  it("GET /metrics shows the turns' messages, model calls, tokens, cost, tools and deliveries", async () => {
    const model = scriptedUsageModel(SCRIPT);
    const h = await startObservabilityHarness({ store, model, usage: { prices: PRICES } });
    await h.say("I was charged twice");
    await h.say("when will the refund arrive?");
    const response = await fetch(h.metricsUrl);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/plain");
    const text = await response.text();
    const value = (series: string) => {
      const line = text.split("\n").find((candidate) => candidate.startsWith(`${series} `));
      return line === undefined ? undefined : Number(line.slice(series.length + 1));
    };
    expect(value('switchboard_messages_received_total{platform="test"}')).toBe(2);
    expect(value('switchboard_messages_answered_total{agent="billing"}')).toBe(2);
    expect(value('switchboard_model_calls_total{agent="billing",model="FakeBuiltModel",outcome="ok"}')).toBe(
      3,
    );
    expect(
      value('switchboard_model_calls_total{agent="supervisor",model="FakeBuiltModel",outcome="ok"}'),
    ).toBe(1);
    expect(value('switchboard_model_tokens_total{agent="billing",model="FakeBuiltModel",kind="input"}')).toBe(
      600,
    );
    expect(
      value('switchboard_model_tokens_total{agent="billing",model="FakeBuiltModel",kind="cached"}'),
    ).toBe(50);
    expect(value('switchboard_model_cost_usd_total{agent="billing",model="FakeBuiltModel"}')).toBeCloseTo(
      0.66,
    );
    expect(value('switchboard_tool_calls_total{tool="lookup_invoice",outcome="ok"}')).toBe(1);
    expect(value('switchboard_deliveries_total{platform="test"}')).toBe(2);
    expect(
      value('switchboard_model_call_duration_seconds_count{agent="billing",model="FakeBuiltModel"}'),
    ).toBe(3);
    expect(value('switchboard_turn_duration_seconds_count{outcome="answered"}')).toBe(2);
    expect(value("switchboard_queue_depth")).toBe(0);
    await h.stop();
  });

  it("every line of a turn carries its conversation, request and run, and no configured secret appears", async () => {
    const secrets = ["sk-test-0123456789abcdefXYZ", "xoxb-1111-2222-secretbot", "hunter2-password"];
    const model = scriptedUsageModel([
      reply("", { input: 10, output: 1 }, [{ name: "transfer_to_billing" }]),
      // A model that repeats a secret it saw: the log must still not carry it.
      reply("", { input: 10, output: 1 }, [{ name: "lookup_invoice", args: { number: secrets[0] } }]),
      reply("done", { input: 10, output: 1 }),
    ]);
    const h = await startObservabilityHarness({ store, model, secrets });
    await h.say(`my key is ${secrets[0]} and my token ${secrets[1]}, password ${secrets[2]}`);
    await h.stop();
    const lines = h.logLines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.length).toBeGreaterThan(3);
    for (const secret of secrets) expect(h.logLines.join("\n")).not.toContain(secret);
    const runLine = lines.find((line) => line.msg === "run finished");
    expect(runLine).toMatchObject({
      conversationKey: KEY,
      requestId: expect.any(String),
      runId: expect.any(String),
      inputTokens: 30,
      outputTokens: 3,
      latencyMs: expect.any(Number),
    });
    const modelLine = lines.find((line) => line.msg === "model call");
    expect(modelLine).toMatchObject({
      conversationKey: KEY,
      requestId: runLine?.requestId,
      runId: runLine?.runId,
      latencyMs: expect.any(Number),
      inputTokens: 10,
    });
  });
});
