import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { tool } from "@langchain/core/tools";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { UserFacingError } from "../runtime/errors.ts";
import { invokeWithRetry, type ModelRetryOptions, ModelUnavailableError, withModelRetry } from "./retry.ts";

function httpError(status: number, headers: Record<string, string> = {}): Error {
  return Object.assign(new Error(`HTTP ${status}`), { status, headers: new Headers(headers) });
}

/** A call that fails with `failures` in order, then answers "ok"; counts its attempts. */
function scripted(...failures: unknown[]) {
  const state = { calls: 0 };
  const call = async () => {
    const failure = failures[state.calls];
    state.calls += 1;
    if (failure !== undefined) throw failure;
    return "ok";
  };
  return { state, call };
}

/** Instant, recorded waits and a fixed random draw. */
function instant(extra: ModelRetryOptions = {}) {
  const sleeps: number[] = [];
  const options: ModelRetryOptions = {
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => 0.5,
    ...extra,
  };
  return { sleeps, options };
}

const never = () => new Promise<never>(() => undefined);

describe("invokeWithRetry", () => {
  it("retries a 429 and returns the later success", async () => {
    const { state, call } = scripted(httpError(429));
    const { sleeps, options } = instant();
    await expect(invokeWithRetry(call, options)).resolves.toBe("ok");
    expect(state.calls).toBe(2);
    expect(sleeps).toEqual([500]); // half (random 0.5) of the 1 s first backoff
  });

  it("waits as long as retry-after says, capped at maxDelayMs", async () => {
    const { call } = scripted(
      httpError(429, { "retry-after": "7" }),
      httpError(429, { "retry-after": "120" }),
    );
    const { sleeps, options } = instant({ maxDelayMs: 30_000 });
    await expect(invokeWithRetry(call, options)).resolves.toBe("ok");
    expect(sleeps).toEqual([7_000, 30_000]);
  });

  it("backs off exponentially with full jitter, within the cap", async () => {
    const { call } = scripted(httpError(503), httpError(503), httpError(503), httpError(503), httpError(503));
    const draws = [0.5, 0.5, 0.5, 0.99];
    const { sleeps, options } = instant({
      maxAttempts: 5,
      baseDelayMs: 1_000,
      maxDelayMs: 3_000,
      random: () => draws.shift()!,
    });
    await expect(invokeWithRetry(call, options)).rejects.toBeInstanceOf(ModelUnavailableError);
    expect(sleeps).toEqual([500, 1_000, 1_500, 2_970]);
  });

  it("fails at once on 401 with the provider's own error", async () => {
    const unauthorized = httpError(401);
    const { state, call } = scripted(unauthorized);
    const { sleeps, options } = instant();
    await expect(invokeWithRetry(call, options)).rejects.toBe(unauthorized);
    expect(state.calls).toBe(1);
    expect(sleeps).toEqual([]);
  });

  it("does not retry errors that are not about the provider", async () => {
    const bug = new TypeError("x is not a function");
    const { state, call } = scripted(bug);
    await expect(invokeWithRetry(call, instant().options)).rejects.toBe(bug);
    expect(state.calls).toBe(1);
  });

  it("gives up after maxAttempts with a ModelUnavailableError for chat and the detail in cause", async () => {
    const last = httpError(429);
    const { state, call } = scripted(httpError(429), httpError(429), httpError(429), last);
    const events: string[] = [];
    const { sleeps, options } = instant({
      onRetry: (event) => events.push(`${event.attempt}:${event.kind}`),
    });
    const error = await invokeWithRetry(call, options).catch((failure: unknown) => failure);

    expect(state.calls).toBe(4);
    expect(sleeps).toHaveLength(3);
    expect(events).toEqual(["1:rate_limited", "2:rate_limited", "3:rate_limited"]);
    expect(error).toBeInstanceOf(ModelUnavailableError);
    const unavailable = error as ModelUnavailableError;
    expect(unavailable.userMessage).toBe(
      "The model is not answering right now (rate limited). Please try again in a minute.",
    );
    expect(unavailable.kind).toBe("rate_limited");
    expect(unavailable.attempts).toBe(4);
    expect(unavailable.cause).toBe(last);
    expect(unavailable.message).toContain("HTTP 429");
  });

  it("honours a smaller maxAttempts", async () => {
    const { state, call } = scripted(httpError(500), httpError(500), httpError(500));
    await expect(invokeWithRetry(call, instant({ maxAttempts: 2 }).options)).rejects.toMatchObject({
      name: "ModelUnavailableError",
      attempts: 2,
      userMessage: "The model is not answering right now (provider error). Please try again in a minute.",
    });
    expect(state.calls).toBe(2);
  });

  it("stops waiting at once when aborted during a backoff", async () => {
    const controller = new AbortController();
    const { state, call } = scripted(httpError(429));
    const reason = new Error("stopped by /stop");
    const pending = invokeWithRetry(call, {
      signal: controller.signal,
      sleep: () => {
        controller.abort(reason);
        return never();
      },
    });
    await expect(pending).rejects.toBe(reason);
    expect(state.calls).toBe(1);
  });

  it("stops waiting at once when aborted during a call that ignores the signal", async () => {
    const controller = new AbortController();
    const pending = invokeWithRetry(never, { signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
  });

  it("does not call at all when already aborted, and never retries a cancelled call", async () => {
    const controller = new AbortController();
    controller.abort(new Error("gone"));
    const { state, call } = scripted();
    await expect(invokeWithRetry(call, { signal: controller.signal })).rejects.toThrow("gone");
    expect(state.calls).toBe(0);

    const second = new AbortController();
    const cancelled = async () => {
      second.abort(new Error("cancelled mid-call"));
      throw Object.assign(new Error("Aborted"), { name: "AbortError" });
    };
    await expect(invokeWithRetry(cancelled, { signal: second.signal, ...instant().options })).rejects.toThrow(
      "cancelled mid-call",
    );
  });

  it("really waits with the default sleep, and an abort ends that wait", async () => {
    const { state, call } = scripted(httpError(503));
    await expect(invokeWithRetry(call, { baseDelayMs: 10, random: () => 1 })).resolves.toBe("ok");
    expect(state.calls).toBe(2);

    const controller = new AbortController();
    const started = Date.now();
    const pending = invokeWithRetry(scripted(httpError(503)).call, {
      baseDelayMs: 60_000,
      random: () => 1,
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(new Error("stop")), 10);
    await expect(pending).rejects.toThrow("stop");
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe("invokeWithRetry with a per-attempt timeout", () => {
  it("aborts a hung attempt through its signal, retries, and then answers", async () => {
    const seen: AbortSignal[] = [];
    const call = async (attempt: number, signal: AbortSignal | undefined) => {
      if (signal) seen.push(signal);
      return attempt === 1 ? never() : "ok";
    };
    const events: string[] = [];
    const { options } = instant({
      attemptTimeoutMs: 30,
      onRetry: (event) => events.push(`${event.attempt}:${event.kind}`),
    });
    await expect(invokeWithRetry(call, options)).resolves.toBe("ok");
    expect(events).toEqual(["1:timeout"]);
    expect(seen[0]?.aborted).toBe(true);
    expect(seen[0]?.reason).toMatchObject({ name: "TimeoutError" });
    expect(seen[1]?.aborted).toBe(false);
  });

  it("says in one sentence how long it waited once every attempt hung", async () => {
    let calls = 0;
    const hung = () => {
      calls += 1;
      return never();
    };
    const error = await invokeWithRetry(
      hung,
      instant({ maxAttempts: 3, attemptTimeoutMs: 100 }).options,
    ).catch((failure: unknown) => failure);
    expect(calls).toBe(3);
    expect(error).toBeInstanceOf(UserFacingError);
    expect(error).toMatchObject({
      name: "ModelUnavailableError",
      kind: "timeout",
      attempts: 3,
      userMessage: "The model did not answer in time (3 attempts of 0.1 s). Please try again.",
    });
  });

  it("makes exactly one call when one attempt is allowed", async () => {
    let calls = 0;
    const hung = () => {
      calls += 1;
      return never();
    };
    await expect(
      invokeWithRetry(hung, instant({ maxAttempts: 1, attemptTimeoutMs: 20 }).options),
    ).rejects.toMatchObject({
      userMessage: "The model did not answer in time (1 attempt of 0.02 s). Please try again.",
    });
    expect(calls).toBe(1);
  });

  describe("with a first-token timeout", () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    async function hungUntilRejected(
      firstTokenTimeoutMs: number,
    ): Promise<{ timers: number; error: unknown }> {
      vi.useFakeTimers();
      const failure = invokeWithRetry(never, {
        maxAttempts: 1,
        attemptTimeoutMs: 2_000,
        firstTokenTimeoutMs,
      }).catch((error: unknown) => error);
      await vi.advanceTimersByTimeAsync(0);
      const timers = vi.getTimerCount();
      await vi.advanceTimersByTimeAsync(2_000);
      return { timers, error: await failure };
    }

    it("gives up on a silent attempt at the first-token timeout, and says so", async () => {
      const { timers, error } = await hungUntilRejected(500);
      expect(timers).toBe(2);
      expect(error).toMatchObject({
        userMessage:
          "The model did not start answering in time (nothing within 0.5 s, 1 attempt). Please try again.",
      });
    });

    it("arms no timer of its own when it is as long as the attempt: one bound, one sentence", async () => {
      // Two timers due at the same moment would race under load for which sentence the user sees.
      const { timers, error } = await hungUntilRejected(2_000);
      expect(timers).toBe(1);
      expect(error).toMatchObject({
        userMessage: "The model did not answer in time (1 attempt of 2 s). Please try again.",
      });
    });
  });

  it("leaves a caller's abort as it is: not a timeout, not retried", async () => {
    const controller = new AbortController();
    let calls = 0;
    const pending = invokeWithRetry(
      () => {
        calls += 1;
        return never();
      },
      { ...instant().options, attemptTimeoutMs: 10_000, signal: controller.signal },
    );
    controller.abort(new Error("shutting down"));
    await expect(pending).rejects.toThrow("shutting down");
    expect(calls).toBe(1);
  });
});

describe("withModelRetry", () => {
  const billing = tool(async () => "ok", {
    name: "transfer_to_billing",
    description: "billing",
    schema: z.object({}),
  });

  it("retries a chat model with tools bound, and passes the call through", async () => {
    const fake = fakeModel()
      .respond(httpError(429))
      .respondWithTools([{ name: "transfer_to_billing", args: {}, id: "call_1" }]);
    const { sleeps, options } = instant();
    const model = withModelRetry(fake, options).bindTools([billing]);

    const reply = await model.invoke([new HumanMessage("refund")]);
    expect(reply.tool_calls).toEqual([
      { name: "transfer_to_billing", args: {}, id: "call_1", type: "tool_call" },
    ]);
    expect(fake.callCount).toBe(2);
    expect(sleeps).toEqual([500]);
  });

  it("cancels through the call's own signal", async () => {
    const fake = fakeModel().respond(httpError(503)).respond(new AIMessage("late"));
    const controller = new AbortController();
    const model = withModelRetry(fake, {
      sleep: () => {
        controller.abort(new Error("user stopped"));
        return never();
      },
    });
    await expect(model.invoke([new HumanMessage("hi")], { signal: controller.signal })).rejects.toThrow(
      "user stopped",
    );
    expect(fake.callCount).toBe(1);
  });

  it("refuses to bind tools twice", () => {
    const model = withModelRetry(fakeModel()).bindTools([billing]);
    expect(() => model.bindTools([billing])).toThrow(/cannot take tools/);
  });
});
