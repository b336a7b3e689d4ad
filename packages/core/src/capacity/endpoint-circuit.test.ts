/**
 * The endpoint's circuit through a real provider SDK (OpenAI's, as LangChain builds it) whose fetch
 * answers 503 while the provider is "down": the circuit opens after the configured failures in a
 * row, refuses calls without sending them (and the model retry stops at once), lets one probe
 * through after its pause, and closes when that probe is answered. Over real sockets: a connection
 * dropped before its answer does not count, a refused one does.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { HumanMessage } from "@langchain/core/messages";
import { afterEach, describe, expect, it, vi } from "vitest";
import { loadChatModelFactory } from "../models/create-model.ts";
import { ModelEndpoints, modelEndpointsConfigSchema } from "../models/model-endpoints.ts";
import { invokeWithRetry, ModelUnavailableError } from "../models/retry.ts";
import type { ModelSpec } from "../models/spec.ts";

const spec: ModelSpec = { provider: "openai-compatible", model: "m", baseUrl: "http://models.test/v1" };

const completion = (text: string) =>
  new Response(
    JSON.stringify({
      id: "c1",
      object: "chat.completion",
      created: 0,
      model: "m",
      choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    }),
    { status: 200, headers: { "content-type": "application/json" } },
  );

function provider() {
  const state = { down: true, sent: 0 };
  const fetchImpl = (async () => {
    state.sent += 1;
    return state.down
      ? new Response(JSON.stringify({ error: { message: "overloaded" } }), {
          status: 503,
          headers: { "content-type": "application/json" },
        })
      : completion("hello again");
  }) as typeof fetch;
  return { state, fetch: fetchImpl };
}

async function modelOn(fetchImpl: typeof fetch, circuit: Record<string, unknown>) {
  const endpoints = new ModelEndpoints(modelEndpointsConfigSchema.parse({ circuit }));
  const build = await loadChatModelFactory(["openai-compatible"], { endpoints });
  const model = build(spec, { fetch: fetchImpl });
  /** One turn's model call: four attempts, no real waits between them. */
  const turn = () =>
    invokeWithRetry(() => model.invoke([new HumanMessage("hi")]), {
      maxAttempts: 4,
      sleep: async () => undefined,
    });
  return { endpoints, turn };
}

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe("a model endpoint's circuit", () => {
  afterEach(() => vi.useRealTimers());

  it("opens after failures in a row, refuses calls without sending them, probes once after its pause, closes on an answer", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: Date.parse("2026-03-02T09:00:00Z") });
    const down = provider();
    const { endpoints, turn } = await modelOn(down.fetch, { openAfterFailures: 3, halfOpenAfterSeconds: 30 });

    const first = await failure(turn());
    expect(first).toBeInstanceOf(ModelUnavailableError);
    // Three 503s opened it; the fourth attempt never reached the provider.
    expect(down.state.sent).toBe(3);
    expect(first).toMatchObject({ attempts: 4, circuitOpen: true });
    expect(endpoints.states()[0]).toMatchObject({ circuit: "open", circuitOpened: 1 });

    // Every further turn while it is open: refused at its first attempt, nothing sent.
    for (let i = 0; i < 10; i++)
      expect(await failure(turn())).toMatchObject({ attempts: 1, circuitOpen: true });
    expect(down.state.sent).toBe(3);

    // After the pause one probe goes; the provider still fails: open again, for another pause.
    vi.setSystemTime(Date.now() + 30_000);
    expect(await failure(turn())).toMatchObject({ circuitOpen: true });
    expect(down.state.sent).toBe(4);
    expect(endpoints.states()[0]).toMatchObject({ circuit: "open", circuitOpened: 2 });

    down.state.down = false;
    vi.setSystemTime(Date.now() + 30_000);
    const answer = await turn();
    expect(answer.content).toBe("hello again");
    expect(endpoints.states()[0]).toMatchObject({ circuit: "closed" });
    expect(down.state.sent).toBe(5);
  });

  it("does not count what is not the provider failing: 400s and a caller's cancel", async () => {
    let sent = 0;
    const badRequest = (async () => {
      sent += 1;
      return new Response(JSON.stringify({ error: { message: "bad" } }), {
        status: 400,
        headers: { "content-type": "application/json" },
      });
    }) as typeof fetch;
    const { endpoints, turn } = await modelOn(badRequest, { openAfterFailures: 2, halfOpenAfterSeconds: 30 });
    for (let i = 0; i < 5; i++) expect(await failure(turn())).not.toBeInstanceOf(ModelUnavailableError);
    expect(sent).toBe(5);
    expect(endpoints.states()[0]).toMatchObject({ circuit: "closed", circuitOpened: 0 });
  });

  it("a turn cancelled while its call hangs does not count", async () => {
    const hanging = (async (_input: string | URL | Request, init?: RequestInit) =>
      new Promise<Response>((_resolve, reject) =>
        init?.signal?.addEventListener("abort", () => reject(init.signal?.reason), { once: true }),
      )) as typeof fetch;
    const endpoints = new ModelEndpoints(
      modelEndpointsConfigSchema.parse({ circuit: { openAfterFailures: 1, halfOpenAfterSeconds: 30 } }),
    );
    const build = await loadChatModelFactory(["openai-compatible"], { endpoints });
    const model = build(spec, { fetch: hanging });
    for (let i = 0; i < 3; i++) {
      const cancelled = new AbortController();
      const turn = invokeWithRetry(() => model.invoke([new HumanMessage("hi")]), {
        maxAttempts: 1,
        signal: cancelled.signal,
      });
      cancelled.abort(new Error("stopped by user"));
      expect(await failure(turn)).not.toBeInstanceOf(ModelUnavailableError);
    }
    expect(endpoints.states()[0]).toMatchObject({ circuit: "closed", circuitOpened: 0 });
  });

  it("never opens with openAfterFailures 0", async () => {
    const down = provider();
    const { endpoints, turn } = await modelOn(down.fetch, { openAfterFailures: 0 });
    for (let i = 0; i < 3; i++) expect(await failure(turn())).toMatchObject({ circuitOpen: false });
    expect(down.state.sent).toBe(12);
    expect(endpoints.states()[0]).toMatchObject({ circuit: "closed" });
  });

  describe("over real connections", () => {
    let server: Server | undefined;
    afterEach(async () => {
      await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
      server = undefined;
    });

    /** A server that takes each request and drops its connection: a reset, or a plain close, in turn. */
    async function droppingServer(): Promise<{ url: string; requests: () => number }> {
      let requests = 0;
      const started = createServer((request) => {
        requests += 1;
        if (requests % 2 === 1) request.socket.resetAndDestroy();
        else request.socket.destroy();
      });
      server = started;
      await new Promise<void>((resolve) => started.listen(0, "127.0.0.1", resolve));
      const { port } = started.address() as AddressInfo;
      return { url: `http://127.0.0.1:${port}/v1`, requests: () => requests };
    }

    async function turnsOn(baseUrl: string) {
      const endpoints = new ModelEndpoints(
        modelEndpointsConfigSchema.parse({ circuit: { openAfterFailures: 2, halfOpenAfterSeconds: 30 } }),
      );
      const build = await loadChatModelFactory(["openai-compatible"], { endpoints });
      // No fetch given: the process's own, over real sockets.
      const model = build({ provider: "openai-compatible", model: "m", baseUrl, maxRetries: 0 });
      const turn = () =>
        invokeWithRetry(() => model.invoke([new HumanMessage("hi")]), {
          maxAttempts: 2,
          sleep: async () => undefined,
        });
      return { endpoints, turn };
    }

    it("a connection dropped before its answer is retried and does not count: the provider is not down", async () => {
      const dropping = await droppingServer();
      const { endpoints, turn } = await turnsOn(dropping.url);
      for (let i = 0; i < 4; i++) {
        const failed = await failure(turn());
        expect(failed).toBeInstanceOf(ModelUnavailableError);
        expect(failed).toMatchObject({ kind: "network", attempts: 2, circuitOpen: false });
      }
      // Eight requests dropped (resets and closes), every one sent: the circuit never opened.
      expect(dropping.requests()).toBe(8);
      expect(endpoints.states()[0]).toMatchObject({ circuit: "closed", circuitOpened: 0 });
    });

    it("a refused connection counts: the circuit opens", async () => {
      const dropping = await droppingServer();
      await new Promise((resolve) => server?.close(resolve));
      server = undefined;
      const { endpoints, turn } = await turnsOn(dropping.url);
      // Two refusals open it; the turn's second attempt is refused by the circuit itself.
      expect(await failure(turn())).toMatchObject({ attempts: 2 });
      expect(await failure(turn())).toMatchObject({ attempts: 1, circuitOpen: true });
      expect(endpoints.states()[0]).toMatchObject({ circuit: "open", circuitOpened: 1 });
    });
  });
});
