import { AIMessage, ToolMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { tool } from "@langchain/core/tools";
import { ChatOpenAI } from "@langchain/openai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { StepDetail } from "./run-step.ts";
import {
  endOfFailedRun,
  modelNameOf,
  RUN_STEPS_KEY,
  recordModelCall,
  recordToolCall,
  type StepSink,
  stepSinkOf,
} from "./step-sink.ts";

/** A sink on a clock that moves 5 ms each time it is read. */
function sink() {
  const steps: StepDetail[] = [];
  let now = 1_000;
  const recorded: StepSink = {
    now: () => {
      now += 5;
      return now;
    },
    step: (detail) => steps.push(detail),
  };
  return { recorded, steps };
}

describe("recording a model call", () => {
  it("records agent, model, latency, tokens, finish reason, and the handoffs the reply asks for", async () => {
    const { recorded, steps } = sink();
    const reply = new AIMessage({
      content: "",
      tool_calls: [
        { id: "c1", name: "transfer_to_billing", args: {} },
        { id: "c2", name: "lookup", args: {} },
      ],
      usage_metadata: {
        input_tokens: 120,
        output_tokens: 12,
        total_tokens: 132,
        input_token_details: { cache_read: 100 },
      },
      response_metadata: { finish_reason: "tool_calls" },
    });
    const handoffTargetOf = (name: string) => (name === "transfer_to_billing" ? "billing" : undefined);
    const answer = await recordModelCall(
      recorded,
      { agent: "supervisor", model: "m1", handoffTargetOf },
      async () => reply,
    );
    expect(answer).toBe(reply);
    expect(steps).toEqual([
      {
        kind: "model_call",
        agent: "supervisor",
        model: "m1",
        startedAt: 1_005,
        endedAt: 1_010,
        latencyMs: 5,
        inputTokens: 120,
        outputTokens: 12,
        cachedTokens: 100,
        finishReason: "tool_calls",
      },
      { kind: "handoff", from: "supervisor", to: "billing" },
    ]);
  });

  it("records a failed attempt with its error and no tokens, and throws the error on", async () => {
    const { recorded, steps } = sink();
    const failure = new DOMException("no first token in time", "TimeoutError");
    await expect(
      recordModelCall(recorded, { agent: "billing", model: "m1" }, async () => {
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(steps).toEqual([
      expect.objectContaining({
        kind: "model_call",
        agent: "billing",
        inputTokens: 0,
        outputTokens: 0,
        error: "TimeoutError: no first token in time",
      }),
    ]);
  });

  it("without a sink only makes the call", async () => {
    const reply = new AIMessage("hi");
    expect(await recordModelCall(undefined, { agent: "a", model: "m" }, async () => reply)).toBe(reply);
  });
});

describe("recording a tool call", () => {
  it("records ok, a digest of the arguments that depends on them, and an error answer as an error", async () => {
    const { recorded, steps } = sink();
    await recordToolCall(recorded, { agent: "billing", tool: "lookup", args: { n: "42" } }, async () => "ok");
    await recordToolCall(
      recorded,
      { agent: "billing", tool: "lookup", args: { n: "43" } },
      async () => new ToolMessage({ tool_call_id: "c", content: "Error: no such invoice", status: "error" }),
    );
    expect(steps.map((step) => step.kind === "tool_call" && [step.tool, step.outcome])).toEqual([
      ["lookup", "ok"],
      ["lookup", "error"],
    ]);
    const [first, second] = steps;
    if (first?.kind !== "tool_call" || second?.kind !== "tool_call") throw new Error("two tool calls");
    expect(first.argsDigest).toMatch(/^[0-9a-f]{12}$/);
    expect(first.argsDigest).not.toBe(second.argsDigest);
  });

  it("records a tool that throws as an error, and not an error the graph passes through", async () => {
    const { recorded, steps } = sink();
    const interrupt = new Error("waiting for approval");
    const passThrough = (error: unknown) => error === interrupt;
    const call = (error: Error) =>
      recordToolCall(
        recorded,
        { agent: "billing", tool: "refund", args: {} },
        async () => {
          throw error;
        },
        passThrough,
      );
    await expect(call(new Error("service down"))).rejects.toThrow("service down");
    await expect(call(interrupt)).rejects.toBe(interrupt);
    expect(steps).toEqual([
      expect.objectContaining({ kind: "tool_call", outcome: "error", error: "Error: service down" }),
    ]);
  });
});

describe("where the sink travels", () => {
  it("is found in a run's configurable, and only a sink is", () => {
    const { recorded } = sink();
    expect(stepSinkOf({ configurable: { [RUN_STEPS_KEY]: recorded } })).toBe(recorded);
    expect(stepSinkOf({ configurable: { [RUN_STEPS_KEY]: { step: () => {} } } })).toBeUndefined();
    expect(stepSinkOf({})).toBeUndefined();
    expect(stepSinkOf(undefined)).toBeUndefined();
  });
});

describe("a model's name", () => {
  it("is the provider's model name, through the binding bindTools wraps it in", () => {
    const lookup = tool(async () => "", { name: "lookup", description: "d", schema: z.object({}) });
    const model = new ChatOpenAI({ model: "gpt-4.1-mini", apiKey: "k" });
    expect(modelNameOf(model)).toBe("gpt-4.1-mini");
    expect(modelNameOf(model.bindTools([lookup]))).toBe("gpt-4.1-mini");
  });

  it("is the class name of a model without one", () => {
    expect(modelNameOf(fakeModel())).toBe("FakeBuiltModel");
    expect(modelNameOf({})).toBe("unknown");
  });
});

describe("how a failed run ended", () => {
  it("is cancelled when aborted or timed out, failed otherwise", () => {
    expect(endOfFailedRun(new DOMException("stop", "AbortError")).status).toBe("cancelled");
    expect(endOfFailedRun(new DOMException("late", "TimeoutError")).status).toBe("cancelled");
    expect(endOfFailedRun(new Error("boom"))).toEqual({ status: "failed", error: "Error: boom" });
  });
});
