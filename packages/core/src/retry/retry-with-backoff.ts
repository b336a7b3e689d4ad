/**
 * The one retry loop for model calls, deliveries and platform requests, on p-retry: p-retry counts
 * the attempts, stops when the signal aborts, and asks whether a failure is worth another try.
 *
 * The wait between attempts is computed here and waited in p-retry's `onFailedAttempt` (its own
 * delay is set to zero), because p-retry can neither honour a platform's or provider's retry-after
 * hint nor jitter fully (its `randomize` only stretches a wait 1–2×). Waits are exponential
 * backoff with full jitter — a random wait in [0, base·2^(n-1)], capped — so many callers hitting
 * one rate limit do not retry in lockstep; a failure's own retry-after replaces the backoff, capped
 * (`maxRetryAfterMs`).
 */
import pRetry, { AbortError } from "p-retry";

/** How often a call is tried and how long the waits between tries may grow. */
export interface BackoffPolicy {
  /** Attempts in total, the first included. */
  readonly attempts: number;
  /** Backoff ceiling before the first retry; doubles per attempt. */
  readonly baseDelayMs: number;
  /** No backoff wait is longer; nor is a retry-after hint, unless `maxRetryAfterMs` says otherwise. */
  readonly maxDelayMs: number;
  /**
   * The longest wait a failure's own retry-after hint is honoured for (default: `maxDelayMs`). A
   * platform that asks for longer is tried again after this long.
   */
  readonly maxRetryAfterMs?: number;
}

/** What `retryWithBackoff` retries, how, and what it reports. */
export interface RetryWithBackoffOptions {
  readonly policy: BackoffPolicy;
  /** Stops at once, during an attempt's wait, with the signal's reason. */
  readonly signal?: AbortSignal;
  /** False: the failure surfaces unchanged at once (default: every failure is retried). */
  readonly retryable?: (error: unknown) => boolean;
  /** The wait the failure itself asks for (HTTP 429 Retry-After…), if any. */
  readonly retryAfterMs?: (error: unknown) => number | undefined;
  /** Reported before each wait, for the log. */
  readonly onRetry?: (attempt: number, delayMs: number, error: unknown) => void;
  /** Waits `ms`; ends early (or not) when `signal` aborts. Default: a timer cleared on abort. */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Uniform in [0, 1). */
  readonly random?: () => number;
}

/** The wait before attempt `failed + 1`: full jitter over the doubling ceiling, or the hint (capped). */
export function backoffDelayMs(
  policy: BackoffPolicy,
  failed: number,
  random: () => number,
  retryAfterMs?: number,
): number {
  if (retryAfterMs !== undefined)
    return Math.round(Math.min(policy.maxRetryAfterMs ?? policy.maxDelayMs, retryAfterMs));
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (failed - 1));
  return Math.round(random() * ceiling);
}

/** Carries a failure through p-retry untouched (p-retry refuses to retry plain TypeErrors). */
class Failed extends Error {
  readonly failure: unknown;
  constructor(failure: unknown) {
    super("attempt failed");
    this.failure = failure;
  }
}

/** Runs `call` until it succeeds, a failure is not retryable, or the attempts are spent (the last failure is thrown). */
export async function retryWithBackoff<T>(
  call: (attempt: number) => Promise<T>,
  options: RetryWithBackoffOptions,
): Promise<T> {
  const { policy, signal, retryable = () => true, sleep = abortableSleep, random = Math.random } = options;
  try {
    return await pRetry(
      async (attempt) => {
        try {
          return await call(attempt);
        } catch (error) {
          if (signal?.aborted || !retryable(error)) throw new AbortError(new Failed(error));
          throw new Failed(error);
        }
      },
      {
        retries: Math.max(0, policy.attempts - 1),
        minTimeout: 0,
        maxTimeout: 0,
        ...(signal ? { signal } : {}),
        onFailedAttempt: async ({ error, attemptNumber, retriesLeft }) => {
          if (retriesLeft <= 0) return;
          const failure = error instanceof Failed ? error.failure : error;
          const delayMs = backoffDelayMs(policy, attemptNumber, random, options.retryAfterMs?.(failure));
          options.onRetry?.(attemptNumber, delayMs, failure);
          await untilAborted(sleep(delayMs, signal), signal);
        },
      },
    );
  } catch (error) {
    throw error instanceof Failed ? error.failure : error;
  }
}

/**
 * Settles with `promise`, or rejects with the signal's reason as soon as it aborts (also when the
 * work behind `promise` ignores its signal).
 */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  // The caller stops waiting; a late rejection of the abandoned work has nobody left to tell.
  promise.catch(() => undefined);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** Waits `ms`; on abort the timer is cleared and the wait never settles (callers race it with the signal). */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    // Cleared on abort so a cancelled caller leaves no timer holding the process open.
    const onAbort = () => clearTimeout(timer);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
