import { describe, expect, it } from "vitest";
import { describeModel } from "./describe.ts";
import {
  ModelConfigError,
  type ModelSpec,
  modelCallPolicy,
  modelRetryOptions,
  parseModelSpec,
  parseModelString,
} from "./spec.ts";

describe("parseModelString", () => {
  const good: Array<[string, ModelSpec]> = [
    ["offline", { provider: "offline" }],
    ["  Offline ", { provider: "offline" }],
    ["openai:gpt-4o-mini", { provider: "openai", model: "gpt-4o-mini" }],
    ["OpenAI:gpt-4o", { provider: "openai", model: "gpt-4o" }],
    ["anthropic:claude-3-5-haiku-latest", { provider: "anthropic", model: "claude-3-5-haiku-latest" }],
    ["ollama:llama3.1", { provider: "ollama", model: "llama3.1" }],
    ["ollama:llama3.1:8b", { provider: "ollama", model: "llama3.1:8b" }],
  ];
  it.each(good)("%j → %j", (text, spec) => {
    expect(parseModelString(text)).toEqual(spec);
  });

  const bad: Array<[string, RegExp]> = [
    ["", /empty/],
    ["   ", /empty/],
    ["gpt-4o-mini", /did you mean "openai:gpt-4o-mini"/],
    ["claude-3-opus", /did you mean "anthropic:claude-3-opus"/],
    ["mistral", /unknown provider "mistral"/],
    ["azure:gpt-4o", /unknown provider "azure"/],
    ["openai:", /no model name after "openai:"/],
    ["anthropic:   ", /no model name/],
    ["offline:tiny", /"offline" takes no model name/],
    ["openai-compatible:qwen", /needs a baseUrl/],
  ];
  it.each(bad)("%j is rejected (%s)", (text, reason) => {
    const error = captureError(() => parseModelString(text));
    expect(error).toBeInstanceOf(ModelConfigError);
    expect((error as ModelConfigError).value).toBe(text);
    expect((error as Error).message).toContain(JSON.stringify(text));
    expect((error as Error).message).toMatch(reason);
    expect((error as Error).message).toContain('"openai:<model>"');
  });
});

describe("parseModelSpec", () => {
  it("reads nothing as offline and strings as parseModelString does", () => {
    expect(parseModelSpec(undefined)).toEqual({ provider: "offline" });
    expect(parseModelSpec("ollama:qwen2.5")).toEqual({ provider: "ollama", model: "qwen2.5" });
  });

  it("accepts an OpenAI-compatible server as an object", () => {
    const spec = { provider: "openai-compatible", baseUrl: "http://127.0.0.1:8000/v1", model: "qwen" };
    expect(parseModelSpec(spec)).toEqual(spec);
  });

  const bad: Array<[string, unknown, RegExp]> = [
    ["compatible without baseUrl", { provider: "openai-compatible", model: "qwen" }, /baseUrl is required/],
    ["non-http baseUrl", { provider: "ollama", model: "x", baseUrl: "ftp://h" }, /http\(s\) URL/],
    ["unknown provider", { provider: "cohere", model: "x" }, /provider/],
    ["misspelt field", { provider: "openai", model: "gpt-4o", apikey: "k" }, /apikey/],
    ["temperature out of range", { provider: "openai", model: "gpt-4o", temperature: 5 }, /temperature/],
    ["offline with a model", { provider: "offline", model: "x" }, /model/],
  ];
  it.each(bad)("rejects %s", (_name, value, reason) => {
    const error = captureError(() => parseModelSpec(value));
    expect(error).toBeInstanceOf(ModelConfigError);
    expect((error as Error).message).toMatch(reason);
  });

  it("never repeats an API key in its error", () => {
    const error = captureError(() =>
      parseModelSpec({ provider: "openai", model: "", apiKey: "sk-secret-value" }),
    ) as Error;
    expect(error.message).toMatch(/model name is empty/);
    expect(error.message).not.toContain("sk-secret-value");
    const misspelt = captureError(() =>
      parseModelSpec({ provider: "openai", model: "m", api_key: "sk-oops" }),
    );
    expect((misspelt as Error).message).toMatch(/api_key/);
    expect((misspelt as Error).message).not.toContain("sk-oops");
  });
});

describe("describeModel", () => {
  const cases: Array<[ModelSpec, string]> = [
    [
      { provider: "offline" },
      "offline (built-in, no LLM) — set model: in switchboard.yaml to use a real one",
    ],
    [{ provider: "openai", model: "gpt-4o-mini", apiKey: "sk-x" }, "openai:gpt-4o-mini"],
    [{ provider: "anthropic", model: "claude-3-5-haiku-latest" }, "anthropic:claude-3-5-haiku-latest"],
    [
      { provider: "openai-compatible", model: "qwen", baseUrl: "http://user:pw@gpu-box:8000/v1/?key=k" },
      "openai-compatible:qwen at http://gpu-box:8000/v1",
    ],
    [
      { provider: "ollama", model: "llama3.1", baseUrl: "http://127.0.0.1:11434" },
      "ollama:llama3.1 at http://127.0.0.1:11434",
    ],
  ];
  it.each(cases)("%j → %s", (spec, text) => {
    expect(describeModel(spec)).toBe(text);
  });
});

describe("modelRetryOptions", () => {
  it("is four attempts by default and maxRetries + 1 when configured", () => {
    expect(modelRetryOptions({ provider: "openai", model: "gpt-4o" })).toEqual({ maxAttempts: 4 });
    expect(modelRetryOptions({ provider: "openai", model: "gpt-4o", maxRetries: 0 })).toEqual({
      maxAttempts: 1,
    });
    expect(modelRetryOptions({ provider: "offline" })).toEqual({ maxAttempts: 1 });
  });
});

describe("modelCallPolicy", () => {
  it("bounds each attempt by timeoutSeconds (120 s) and its start by firstTokenTimeoutSeconds (30 s)", () => {
    expect(modelCallPolicy({ provider: "openai", model: "gpt-4o" })).toEqual({
      maxAttempts: 4,
      attemptTimeoutMs: 120_000,
      firstTokenTimeoutMs: 30_000,
    });
    const spec = parseModelSpec({
      provider: "openai-compatible",
      baseUrl: "http://127.0.0.1:9/v1",
      model: "stub",
      maxRetries: 2,
      timeoutSeconds: 5,
      firstTokenTimeoutSeconds: 2,
    });
    expect(modelCallPolicy(spec)).toEqual({
      maxAttempts: 3,
      attemptTimeoutMs: 5_000,
      firstTokenTimeoutMs: 2_000,
    });
  });

  it("never waits longer for the first token than for the whole attempt", () => {
    const spec = parseModelSpec({ provider: "openai", model: "gpt-4o", timeoutSeconds: 1.5 });
    expect(modelCallPolicy(spec)).toEqual({
      maxAttempts: 4,
      attemptTimeoutMs: 1_500,
      firstTokenTimeoutMs: 1_500,
    });
  });

  it("refuses a timeout that is not a positive number of seconds", () => {
    for (const timeoutSeconds of [0, -1, "60", 7200]) {
      expect(() => parseModelSpec({ provider: "openai", model: "gpt-4o", timeoutSeconds })).toThrow(
        /timeoutSeconds/,
      );
      expect(() =>
        parseModelSpec({ provider: "openai", model: "gpt-4o", firstTokenTimeoutSeconds: timeoutSeconds }),
      ).toThrow(/firstTokenTimeoutSeconds/);
    }
  });
});

function captureError(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error("expected an error");
}
