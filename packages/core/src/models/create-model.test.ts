import { ChatAnthropic } from "@langchain/anthropic";
import { HumanMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { ChatOllama } from "@langchain/ollama";
import { ChatOpenAI, ChatOpenAICompletions } from "@langchain/openai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createChatModel, loadChatModelFactory, ProviderNotLoadedError } from "./create-model.ts";
import { OfflineChatModel } from "./offline-model.ts";
import { classifyModelError } from "./retry-policy.ts";
import { ModelConfigError } from "./spec.ts";

interface RecordedRequest {
  url: string;
  headers: Headers;
  body: Record<string, unknown>;
}

/** A fetch that answers every request with `respond` and records what was asked. */
function fakeFetch(respond: () => Response) {
  const requests: RecordedRequest[] = [];
  const fetchImpl = async (input: string | URL | Request, init?: RequestInit) => {
    const request = new Request(input, init);
    requests.push({
      url: request.url,
      headers: request.headers,
      body: (await request.json()) as Record<string, unknown>,
    });
    return respond();
  };
  return { requests, fetch: fetchImpl as typeof fetch };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });

const lookup = tool(async () => "ok", {
  name: "transfer_to_billing",
  description: "billing",
  schema: z.object({}),
});

describe("createChatModel", () => {
  it("builds the offline model for offline", async () => {
    const model = await createChatModel({ provider: "offline" }, { offlineAgentName: "billing" });
    expect(model).toBeInstanceOf(OfflineChatModel);
    expect((model as OfflineChatModel).agentName).toBe("billing");
  });

  it("constructs openai:gpt-4o-mini with a key and no network", async () => {
    const model = await createChatModel({ provider: "openai", model: "gpt-4o-mini", apiKey: "x" });
    expect(model).toBeInstanceOf(ChatOpenAI);
    expect((model as ChatOpenAI).model).toBe("gpt-4o-mini");
    expect(typeof model.bindTools).toBe("function");
  });

  it("constructs anthropic and ollama models", async () => {
    expect(
      await createChatModel({ provider: "anthropic", model: "claude-3-5-haiku-latest", apiKey: "x" }),
    ).toBeInstanceOf(ChatAnthropic);
    expect(await createChatModel({ provider: "ollama", model: "llama3.1" })).toBeInstanceOf(ChatOllama);
  });

  it.each([
    ["openai", "OPENAI_API_KEY"],
    ["anthropic", "ANTHROPIC_API_KEY"],
  ] as const)("refuses %s without a key and names %s", async (provider, envVar) => {
    await expect(createChatModel({ provider, model: "m" })).rejects.toThrow(ModelConfigError);
    await expect(createChatModel({ provider, model: "m" })).rejects.toThrow(
      new RegExp(`set ${envVar} in the environment, or apiKey under model: in switchboard.yaml`),
    );
  });

  it("builds models synchronously for the providers a factory was loaded for", async () => {
    const build = await loadChatModelFactory(["openai-compatible", "ollama"]);
    expect(
      build({ provider: "openai-compatible", model: "qwen", baseUrl: "http://gpu-box:8000/v1" }),
    ).toBeInstanceOf(ChatOpenAICompletions);
    expect(build({ provider: "openai", model: "gpt-4o-mini", apiKey: "x" })).toBeInstanceOf(ChatOpenAI);
    expect(build({ provider: "ollama", model: "llama3.1" })).toBeInstanceOf(ChatOllama);
    expect(build({ provider: "offline" })).toBeInstanceOf(OfflineChatModel);
  });

  it("refuses a provider its factory was not loaded for, naming it", async () => {
    const build = await loadChatModelFactory(["offline"]);
    expect(() => build({ provider: "anthropic", model: "claude-3-5-haiku-latest", apiKey: "x" })).toThrow(
      ProviderNotLoadedError,
    );
    expect(() => build({ provider: "ollama", model: "llama3.1" })).toThrow(
      /the ollama model library was not loaded: include "ollama"/,
    );
  });

  it("talks Chat Completions to an OpenAI-compatible base URL, with a placeholder key", async () => {
    const server = fakeFetch(() =>
      json(200, {
        id: "chatcmpl-1",
        object: "chat.completion",
        created: 1,
        model: "qwen",
        choices: [
          {
            index: 0,
            finish_reason: "tool_calls",
            message: {
              role: "assistant",
              content: null,
              tool_calls: [
                { id: "c1", type: "function", function: { name: "transfer_to_billing", arguments: "{}" } },
              ],
            },
          },
        ],
        usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 },
      }),
    );
    const model = await createChatModel(
      { provider: "openai-compatible", model: "qwen", baseUrl: "http://gpu-box:8000/v1" },
      { fetch: server.fetch },
    );
    const reply = await model.bindTools([lookup]).invoke([new HumanMessage("refund")]);

    expect(reply.tool_calls?.map((call) => call.name)).toEqual(["transfer_to_billing"]);
    expect(reply.usage_metadata?.total_tokens).toBe(15);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.url).toBe("http://gpu-box:8000/v1/chat/completions");
    expect(server.requests[0]?.headers.get("authorization")).toBe("Bearer not-needed");
    expect(server.requests[0]?.body).toMatchObject({ model: "qwen" });
  });

  it("talks the Messages API to Anthropic with the given key", async () => {
    const server = fakeFetch(() =>
      json(200, {
        id: "msg_1",
        type: "message",
        role: "assistant",
        model: "claude-3-5-haiku-latest",
        content: [{ type: "text", text: "hello" }],
        stop_reason: "end_turn",
        usage: { input_tokens: 5, output_tokens: 1 },
      }),
    );
    const model = await createChatModel(
      {
        provider: "anthropic",
        model: "claude-3-5-haiku-latest",
        apiKey: "sk-ant",
        baseUrl: "http://proxy:9000",
      },
      { fetch: server.fetch },
    );
    const reply = await model.invoke([new HumanMessage("hi")]);
    expect(reply.text).toBe("hello");
    expect(server.requests[0]?.url).toBe("http://proxy:9000/v1/messages");
    expect(server.requests[0]?.headers.get("x-api-key")).toBe("sk-ant");
  });

  it("talks to Ollama at its base URL", async () => {
    const line = {
      model: "llama3.1",
      created_at: "2024-01-01T00:00:00Z",
      message: { role: "assistant", content: "hi from ollama" },
      done: true,
      done_reason: "stop",
      prompt_eval_count: 4,
      eval_count: 3,
    };
    const server = fakeFetch(
      () =>
        new Response(`${JSON.stringify(line)}\n`, { headers: { "content-type": "application/x-ndjson" } }),
    );
    const model = await createChatModel(
      { provider: "ollama", model: "llama3.1", baseUrl: "http://ollama-box:11434" },
      { fetch: server.fetch },
    );
    const reply = await model.invoke([new HumanMessage("hi")]);
    expect(reply.text).toBe("hi from ollama");
    expect(server.requests[0]?.url).toBe("http://ollama-box:11434/api/chat");
  });

  // The SDKs' own retries are off, so our policy sees every failure once, in the SDK's error shape.
  it.each([
    ["openai", 429, { "retry-after": "7" }, { kind: "rate_limited", retryAfterMs: 7000 }],
    ["openai", 503, {}, { kind: "server_error" }],
    ["openai", 401, {}, undefined],
    ["anthropic", 429, { "retry-after": "2" }, { kind: "rate_limited", retryAfterMs: 2000 }],
    ["anthropic", 401, {}, undefined],
  ] as const)(
    "%s %i is one request, classified for retry as %j",
    async (provider, status, headers, expected) => {
      const server = fakeFetch(() =>
        json(status, { error: { type: "error", message: `status ${status}`, code: null } }, headers),
      );
      const model = await createChatModel(
        { provider, model: provider === "openai" ? "gpt-4o-mini" : "claude-3-5-haiku-latest", apiKey: "k" },
        { fetch: server.fetch },
      );
      const error = await model.invoke([new HumanMessage("hi")]).then(
        () => undefined,
        (failure: unknown) => failure,
      );
      expect(error).toBeDefined();
      expect(server.requests).toHaveLength(1);
      expect(classifyModelError(error, { callerAborted: false, now: () => 0 })).toEqual(expected);
    },
  );
});
