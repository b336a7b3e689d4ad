/**
 * Model calls over real HTTP against the OpenAI-compatible stub: the provider SDK LangChain uses,
 * the configured attempts and per-attempt timeout, and what the user reads when the model is gone.
 */
import { HumanMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { createChatModel, type ModelSpec, openStore, type Store } from "@switchboard/core";
import { parseModelSpec, teamConfigSchema } from "@switchboard/core/config";
import { modelCallPolicy } from "@switchboard/core/host";
import { waitFor } from "@switchboard/core/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { answer, callTools, fail, hang } from "./support/model/chat-request.ts";
import { ModelStub } from "./support/model/model-stub.ts";
import { startTeamHarness } from "./support/team-harness.ts";

let stub: ModelStub;
let store: Store;
beforeEach(async () => {
  stub = await ModelStub.start();
  store = await openStore("memory://");
});
afterEach(async () => {
  await store.close();
  await stub.close();
});

const specOf = (
  extra: { maxRetries?: number; timeoutSeconds?: number; firstTokenTimeoutSeconds?: number } = {},
): ModelSpec => parseModelSpec(stub.modelConfig(extra));
const soloTeam = teamConfigSchema.parse({ supervisor: { prompt: "Answer the user." } });

async function teamOn(spec: ModelSpec) {
  const model = await createChatModel(spec);
  return startTeamHarness({
    store,
    models: { default: model },
    team: soloTeam,
    modelCalls: modelCallPolicy(spec),
  });
}

describe("the model stub, through the provider SDK", () => {
  it("answers plainly with usage figures, streams in chunks with a usage chunk, and calls tools", async () => {
    const model = await createChatModel(specOf());
    const reply = await model.invoke([new HumanMessage("hello there")]);
    expect(reply.content).toBe("Answer to: hello there");
    expect(reply.usage_metadata?.input_tokens).toBeGreaterThan(0);
    expect(reply.usage_metadata?.output_tokens).toBeGreaterThan(0);

    const pieces: string[] = [];
    let streamedOutputTokens = 0;
    for await (const chunk of await model.stream([new HumanMessage("stream me")])) {
      if (typeof chunk.content === "string" && chunk.content !== "") pieces.push(chunk.content);
      streamedOutputTokens += chunk.usage_metadata?.output_tokens ?? 0;
    }
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.join("")).toBe("Answer to: stream me");
    expect(streamedOutputTokens).toBeGreaterThan(0);
    expect(stub.requests[1]?.streamed).toBe(true);
    expect(stub.requests[1]?.body.stream_options?.include_usage).toBe(true);

    stub.script = () => callTools([{ name: "lookup_invoice", args: { number: "4711" } }]);
    const lookup = tool(async () => "paid", {
      name: "lookup_invoice",
      description: "finds an invoice",
      schema: z.object({ number: z.string() }),
    });
    const asked = await model.bindTools([lookup]).invoke([new HumanMessage("is 4711 paid?")]);
    expect(asked.tool_calls).toEqual([
      expect.objectContaining({ name: "lookup_invoice", args: { number: "4711" } }),
    ]);
    expect(stub.requests[2]?.toolNames).toEqual(["lookup_invoice"]);
  });
});

describe("model calls under the configured limits", () => {
  it("maxRetries 0 makes exactly one call, and the user reads one sentence", async () => {
    stub.script = () => fail(500);
    const harness = await teamOn(specOf({ maxRetries: 0 }));
    const printed = await harness.say("hello?");
    await harness.stop();
    expect(stub.received.value).toBe(1);
    expect(printed.join("\n")).toContain(
      "The model is not answering right now (provider error). Please try again in a minute.",
    );
  });

  it("retries a failed call up to maxRetries and answers with the later success", async () => {
    stub.script = (request) => (request.index < 2 ? fail(503) : answer("made it"));
    const harness = await teamOn(specOf({ maxRetries: 2 }));
    const printed = await harness.say("anyone?");
    await harness.stop();
    expect(stub.received.value).toBe(3);
    expect(printed.join("\n")).toContain("made it");
  });

  it("aborts a hung call after timeoutSeconds, retries within the budget, then says so in one sentence", async () => {
    stub.script = () => hang();
    const harness = await teamOn(specOf({ maxRetries: 2, timeoutSeconds: 0.4 }));
    const started = Date.now();
    const printed = await harness.say("are you there?");
    const elapsedMs = Date.now() - started;
    await harness.stop();
    expect(stub.received.value).toBe(3);
    // Each hung request was given up on (its HTTP request cancelled), not left open.
    await waitFor(
      "every hung request to be cancelled",
      () => stub.abandoned.value === 3 && stub.inFlight.value === 0,
      2_000,
    );
    const lines = printed.filter((line) => !line.includes("you>"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("The model did not answer in time (3 attempts of 0.4 s). Please try again.");
    // Three attempts of 0.4 s plus two backoff waits (at most 1 s and 2 s).
    expect(elapsedMs).toBeLessThan(3 * 400 + 3_000 + 1_000);
  });

  it("gives up on a stream that started but sends nothing within firstTokenTimeoutSeconds, and retries", async () => {
    // The response starts (200, headers) and then stays silent: only the first-token bound catches it,
    // long before the whole attempt's timeout.
    stub.script = (request) =>
      answer(request.index === 0 ? "too late" : "on time", {
        silentMs: 5_000 * (request.index === 0 ? 1 : 0),
      });
    const harness = await teamOn(
      specOf({ maxRetries: 1, timeoutSeconds: 30, firstTokenTimeoutSeconds: 0.3 }),
    );
    const printed = await harness.say("ping");
    await harness.stop();
    expect(stub.received.value).toBe(2);
    expect(printed.join("\n")).toContain("on time");
    expect(printed.join("\n")).not.toContain("too late");
    // The silent request was cancelled, not left open.
    await waitFor("the silent request to be cancelled", () => stub.abandoned.value === 1, 2_000);
  });

  it("says in one sentence that the model never started answering when every attempt stayed silent", async () => {
    stub.script = () => answer("never seen", { silentMs: 5_000 });
    const harness = await teamOn(
      specOf({ maxRetries: 1, timeoutSeconds: 30, firstTokenTimeoutSeconds: 0.3 }),
    );
    const printed = await harness.say("anyone?");
    await harness.stop();
    const lines = printed.filter((line) => !line.includes("you>"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(
      "The model did not start answering in time (nothing within 0.3 s, 2 attempts). Please try again.",
    );
  });

  it("a hung attempt followed by an answer: the user gets the answer", async () => {
    stub.script = (request) => (request.index === 0 ? hang() : answer("here now"));
    const harness = await teamOn(specOf({ maxRetries: 1, timeoutSeconds: 0.3 }));
    const printed = await harness.say("ping");
    await harness.stop();
    expect(stub.received.value).toBe(2);
    expect(printed.join("\n")).toContain("here now");
  });
});
