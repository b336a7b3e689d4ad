import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { DEFAULT_DELIVERY_RETRY, postOnce, withDeliveryRetry } from "./retry-delivery.ts";

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

describe("postOnce", () => {
  const options = { policy: { attempts: 3, baseDelayMs: 0, maxDelayMs: 0 }, onRetry: () => undefined };

  /** A platform that acts on a post and fails to say so `silent` times, or refuses `refusals` posts. */
  function platform(failures: { silent?: number; refusals?: number }) {
    const landed: string[] = [];
    const calls: string[] = [];
    let silent = failures.silent ?? 0;
    let refusals = failures.refusals ?? 0;
    return {
      landed,
      calls,
      post: async () => {
        calls.push("post");
        if (refusals-- > 0) throw rateLimited(0);
        landed.push(`message ${landed.length + 1}`);
        if (silent-- > 0) throw new Error("HTTP 500");
        return landed.at(-1) ?? "";
      },
      find: async () => {
        calls.push("find");
        return landed[0];
      },
    };
  }

  it("after a failure the platform may have acted on, finds the post instead of posting it again", async () => {
    const slack = platform({ silent: 1 });
    await expect(postOnce(slack.post, slack.find, options)).resolves.toBe("message 1");
    expect(slack.landed).toEqual(["message 1"]);
    expect(slack.calls).toEqual(["post", "find"]);
  });

  it("after a rate limit's refusal posts again without looking: nothing was done", async () => {
    const slack = platform({ refusals: 1 });
    await expect(postOnce(slack.post, slack.find, options)).resolves.toBe("message 1");
    expect(slack.calls).toEqual(["post", "post"]);
  });

  it("looks first when an earlier attempt may have posted", async () => {
    const slack = platform({});
    slack.landed.push("posted before a restart");
    await expect(postOnce(slack.post, slack.find, { ...options, mayHaveLanded: true })).resolves.toBe(
      "posted before a restart",
    );
    expect(slack.calls).toEqual(["find"]);
  });
});
