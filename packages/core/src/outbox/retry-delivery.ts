import { setTimeout as sleep } from "node:timers/promises";

export interface DeliveryRetryPolicy {
  /** Attempts per chunk, the first included. */
  readonly attempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

export const DEFAULT_DELIVERY_RETRY: DeliveryRetryPolicy = {
  attempts: 5,
  baseDelayMs: 500,
  maxDelayMs: 15_000,
};

/** A platform error that says when to try again (HTTP 429 Retry-After, Matrix retry_after_ms…). */
function retryAfterMsOf(error: unknown): number | undefined {
  if (!error || typeof error !== "object") return undefined;
  const record = error as Record<string, unknown>;
  for (const field of ["retryAfterMs", "retry_after_ms"]) {
    const value = record[field];
    if (typeof value === "number" && value >= 0) return value;
  }
  const seconds = record.retryAfter ?? record.retry_after;
  return typeof seconds === "number" && seconds >= 0 ? seconds * 1000 : undefined;
}

/**
 * Runs `post` until it succeeds or the attempts are spent, waiting with exponential backoff (or the
 * platform's own retry-after) in between; the wait ends early when `signal` aborts.
 */
export async function withDeliveryRetry<T>(
  post: () => Promise<T>,
  options: {
    policy: DeliveryRetryPolicy;
    signal?: AbortSignal;
    onRetry: (attempt: number, delayMs: number, error: unknown) => void;
  },
): Promise<T> {
  const { policy, signal } = options;
  for (let attempt = 1; ; attempt++) {
    try {
      return await untilAborted(post(), signal);
    } catch (error) {
      if (attempt >= policy.attempts || signal?.aborted) throw error;
      const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
      const delayMs = Math.min(policy.maxDelayMs, retryAfterMsOf(error) ?? backoff);
      options.onRetry(attempt, delayMs, error);
      await sleep(delayMs, undefined, signal ? { signal } : {});
    }
  }
}

/**
 * `work`, or the abort: a platform call that hangs must not hold a shutdown. (The call itself may
 * still land; the outbox's record of the attempt lets the next process find it.)
 */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
