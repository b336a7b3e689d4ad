import { describe, expect, it } from "vitest";
import { backoffDelayMs, retryWithBackoff } from "./retry-with-backoff.ts";

const policy = { attempts: 4, baseDelayMs: 100, maxDelayMs: 1_000 };

/** A call that fails with the given errors in turn, then answers "done". */
function failing(...errors: unknown[]): { call: (attempt: number) => Promise<string>; attempts: number[] } {
  const attempts: number[] = [];
  return {
    attempts,
    call: async (attempt) => {
      attempts.push(attempt);
      const error = errors.shift();
      if (error !== undefined) throw error;
      return "done";
    },
  };
}

describe("retryWithBackoff", () => {
  it("waits a random share of a doubling ceiling, so callers on one rate limit spread out", async () => {
    const waits: number[] = [];
    const { call, attempts } = failing(new Error("a"), new Error("b"), new Error("c"));
    const draws = [0.5, 0.25, 0.99];
    const result = await retryWithBackoff(call, {
      policy,
      random: () => draws.shift() ?? 0,
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    expect(result).toBe("done");
    expect(attempts).toEqual([1, 2, 3, 4]);
    expect(waits).toEqual([50, 50, 396]);
  });

  it("waits what the failure asks for instead, capped", async () => {
    const waits: number[] = [];
    const limited = Object.assign(new Error("429"), { retryAfterMs: 700 });
    const { call } = failing(limited, Object.assign(new Error("429"), { retryAfterMs: 60_000 }));
    await retryWithBackoff(call, {
      policy,
      retryAfterMs: (error) => (error as { retryAfterMs?: number }).retryAfterMs,
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    expect(waits).toEqual([700, 1_000]);
  });

  it("honours a retry-after longer than the backoff's ceiling up to its own cap", async () => {
    const waits: number[] = [];
    const limited = (ms: number) => Object.assign(new Error("429"), { retryAfterMs: ms });
    const { call } = failing(limited(60_000), limited(900_000), new Error("500"));
    await retryWithBackoff(call, {
      policy: { ...policy, maxRetryAfterMs: 300_000 },
      retryAfterMs: (error) => (error as { retryAfterMs?: number }).retryAfterMs,
      random: () => 0.999999,
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    // The hints as asked (the second capped); a failure without one still backs off within maxDelayMs.
    expect(waits).toEqual([60_000, 300_000, 400]);
  });

  it("surfaces a failure not worth retrying at once, unchanged", async () => {
    const forbidden = new Error("403");
    const { call, attempts } = failing(forbidden);
    await expect(retryWithBackoff(call, { policy, retryable: (error) => error !== forbidden })).rejects.toBe(
      forbidden,
    );
    expect(attempts).toEqual([1]);
  });

  it("retries any failure it is told to, TypeErrors and thrown strings included, and throws the last", async () => {
    const last = new TypeError("terminated");
    const { call, attempts } = failing("odd", new TypeError("x"), new Error("y"), last);
    await expect(retryWithBackoff(call, { policy, sleep: async () => undefined })).rejects.toBe(last);
    expect(attempts).toEqual([1, 2, 3, 4]);
  });

  it("stops during a wait when the signal aborts, with the signal's reason", async () => {
    const stop = new AbortController();
    const { call, attempts } = failing(new Error("a"), new Error("b"));
    const reason = new Error("shutting down");
    const running = retryWithBackoff(call, {
      policy,
      signal: stop.signal,
      // A wait that never ends by itself: only the abort ends it.
      sleep: () => new Promise<void>(() => undefined),
      onRetry: () => queueMicrotask(() => stop.abort(reason)),
    });
    await expect(running).rejects.toBe(reason);
    expect(attempts).toEqual([1]);
  });

  it("computes the ceiling per failed attempt", () => {
    expect([1, 2, 3, 4, 5].map((failed) => backoffDelayMs(policy, failed, () => 0.999999))).toEqual([
      100, 200, 400, 800, 1_000,
    ]);
  });
});
