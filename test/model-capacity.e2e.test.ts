/**
 * Capacity under a slow or failing provider, over real HTTP against the OpenAI-compatible stub: the
 * provider SDK, the endpoint's limiter in the model's fetch, the engine's CPU slots. Assertions are
 * about order and counts, never durations.
 */

import { HumanMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { createChatModel, Engine, openStore, type Store, Team } from "@switchboard/core";
import {
  DEFAULT_ENGINE_SETTINGS,
  modelEndpointsConfigSchema,
  parseModelSpec,
  teamConfigSchema,
} from "@switchboard/core/config";
import { loadChatModelFactory, ModelEndpoints, modelCallPolicy } from "@switchboard/core/host";
import { RecordingAdapter, waitFor } from "@switchboard/core/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { answer, hang } from "./support/model/chat-request.ts";
import { ModelStub } from "./support/model/model-stub.ts";

let stub: ModelStub;
let store: Store;
let engine: Engine | undefined;
beforeEach(async () => {
  stub = await ModelStub.start();
  store = await openStore("memory://");
});
afterEach(async () => {
  await engine?.stop();
  engine = undefined;
  await store.close();
  await stub.close();
});

/** One supervisor answering directly, on the stub, in an engine with a single CPU slot. */
async function startEngine(spec: ReturnType<typeof parseModelSpec>) {
  const model = await createChatModel(spec);
  const team = new Team({
    config: teamConfigSchema.parse({ supervisor: { prompt: "Answer the user." } }),
    routing: { sticky: true },
    limits: { maxIterations: 5, maxRepeatedToolCalls: 5, wallTimeSeconds: 600 },
    checkpointer: new MemorySaver(),
    store,
    modelFor: () => model,
    describeModel: () => "stub",
    modelCalls: modelCallPolicy(spec),
  });
  const adapter = new RecordingAdapter();
  engine = new Engine({
    store,
    adapters: [adapter],
    responder: team,
    commands: team.commands,
    // One slot: were a turn to hold it while it waits on the model, nobody else could go on.
    settings: { cpuSlots: { ...DEFAULT_ENGINE_SETTINGS.cpuSlots, initial: 1, min: 1, max: 1 } },
  });
  await engine.start();
  const answerIn = (thread: string) =>
    adapter.posts.find((post) => post.conversation.path.includes(thread) && post.text.includes("Answer"))
      ?.text;
  const ask = (thread: string, text: string) =>
    adapter.send(text, { conversation: { platform: "test", path: [thread] }, isDirect: true });
  return { adapter, ask, answerIn };
}

describe("a slow or hung provider costs only its own conversation", () => {
  it("answers another conversation while one conversation's model call hangs", async () => {
    stub.script = (request) =>
      request.lastUserText.includes("stuck") ? hang() : answer(`Answer: ${request.lastUserText}`);
    const bot = await startEngine(parseModelSpec(stub.modelConfig({ maxRetries: 0 })));
    await bot.ask("thread-a", "stuck question");
    await stub.inFlight.atLeast(1);
    await bot.ask("thread-b", "quick question");
    await waitFor("the other conversation's answer", () => bot.answerIn("thread-b") !== undefined, 10_000);
    expect(bot.answerIn("thread-b")).toBe("Answer: quick question");
    // The hung call is still open: the answer did not wait for it to be given up.
    expect(stub.inFlight.value).toBe(1);
    expect(bot.answerIn("thread-a")).toBeUndefined();
  });

  it("gives up on a call that sends nothing, retries it, and lets the others go first meanwhile", async () => {
    stub.script = (request) => (request.index === 0 ? hang() : answer(`Answer: ${request.lastUserText}`));
    const bot = await startEngine(
      parseModelSpec({ ...stub.modelConfig({ maxRetries: 1 }), firstTokenTimeoutSeconds: 1 }),
    );
    await bot.ask("thread-a", "first question");
    await stub.inFlight.atLeast(1);
    for (const thread of ["thread-b", "thread-c", "thread-d"]) await bot.ask(thread, `question in ${thread}`);
    await waitFor(
      "the others' answers",
      () => ["thread-b", "thread-c", "thread-d"].every((t) => bot.answerIn(t)),
      10_000,
    );
    await waitFor("the retried answer", () => bot.answerIn("thread-a") !== undefined, 10_000);
    expect(bot.answerIn("thread-a")).toBe("Answer: first question");
    const order = bot.adapter.posts.map((post) => post.conversation.path[0]);
    expect(order.indexOf("thread-a")).toBe(3);
    // Its first request was abandoned at the first-token timeout and sent again.
    expect(stub.requests.filter((request) => request.lastUserText === "first question")).toHaveLength(2);
    expect(stub.abandoned.value).toBe(1);
  });
});

describe("the endpoint's limit over real HTTP", () => {
  it("grows with answered calls, streamed or not", async () => {
    const endpoints = new ModelEndpoints(
      modelEndpointsConfigSchema.parse({ initialConcurrency: 1, maxConcurrency: 10 }),
    );
    const build = await loadChatModelFactory(["openai-compatible"], { endpoints });
    const model = build(parseModelSpec(stub.modelConfig()));
    for (let i = 0; i < 3; i++)
      for await (const _chunk of await model.stream([new HumanMessage("hi")])) void _chunk;
    // Slow start: one call in flight at a time keeps the limit in use up to 2, so two answers raise it to 3.
    expect(endpoints.states()[0]).toMatchObject({ limit: 3, inFlight: 0, congestion: { timeout: 0 } });
  });
});
