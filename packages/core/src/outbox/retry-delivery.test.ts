import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { DEFAULT_DELIVERY_RETRY, withDeliveryRetry } from "./retry-delivery.ts";

/** What Slack's Web API client throws for a 429 (`retryAfter` in seconds). */
function rateLimited(retryAfterSeconds: number): Error {
  return Object.assign(new Error("A rate limit was exceeded"), {
    code: "slack_webapi_rate_limited_error",
    retryAfter: retryAfterSeconds,
  });
}

describe("withDeliveryRetry", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("waits out a platform's Retry-After longer than its backoff ceiling instead of asking again early", async () => {
    const tries: number[] = [];
    const refusals = [rateLimited(45), rateLimited(60)];
    const post = async () => {
      tries.push(Date.now());
      const refusal = refusals.shift();
      if (refusal) throw refusal;
      return { id: "posted" };
    };
    const retries: number[] = [];
    const started = Date.now();
    const delivered = withDeliveryRetry(post, {
      policy: DEFAULT_DELIVERY_RETRY,
      onRetry: (_attempt, delayMs) => retries.push(delayMs),
    });

    await vi.advanceTimersByTimeAsync(44_000);
    // Asked again before then, the platform would refuse again and spend an attempt.
    expect(tries).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(61_000);
    await expect(delivered).resolves.toEqual({ id: "posted" });
    expect(tries.map((at) => at - started)).toEqual([0, 45_000, 105_000]);
    expect(retries).toEqual([45_000, 60_000]);
  });

  it("tries again after a minute when the platform asks for longer, and gives up after the attempts", async () => {
    const tries: number[] = [];
    const post = async () => {
      tries.push(Date.now());
      throw rateLimited(3_600);
    };
    const started = Date.now();
    const delivered = withDeliveryRetry(post, { policy: DEFAULT_DELIVERY_RETRY, onRetry: () => undefined });
    const outcome = expect(delivered).rejects.toMatchObject({ retryAfter: 3_600 });
    await vi.advanceTimersByTimeAsync(4 * 60_000);
    await outcome;
    // Four waits of a minute: within a turn's time limit, which would otherwise cut the delivery short.
    expect(tries.map((at) => at - started)).toEqual([0, 60_000, 120_000, 180_000, 240_000]);
  });
});
