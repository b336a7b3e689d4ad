import { awayFromCpu } from "../capacity/cpu-slots.ts";
import { type BackoffPolicy, retryWithBackoff, untilAborted } from "../retry/retry-with-backoff.ts";

/** Attempts per chunk (the first included) and the backoff between them. */
export type DeliveryRetryPolicy = BackoffPolicy;

/**
 * Five attempts with backoff up to 15 s. A platform's rate limit (a 429 with Retry-After, Matrix's
 * `retry_after_ms`) is waited out as long as it asks, up to a minute: retried sooner, the post
 * would be refused again and spend the attempts meant for real failures, and an answer the
 * platform would have taken a little later would be given up. A minute (Slack asks for up to 60 s
 * past a method's tier) keeps the four waits within a few minutes, well inside a turn's time limit
 * (`maxTurnMs`, 11 minutes), which would otherwise cut the delivery short. The turn holds no CPU
 * slot meanwhile, and stopping the process ends the wait (the answer stays queued).
 */
export const DEFAULT_DELIVERY_RETRY: DeliveryRetryPolicy = {
  attempts: 5,
  baseDelayMs: 500,
  maxDelayMs: 15_000,
  maxRetryAfterMs: 60_000,
};

/**
 * A platform error that says when to try again (HTTP 429 Retry-After, Matrix retry_after_ms…): the
 * platform refused the call, so nothing it would have done was done.
 */
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

/** How a delivery is retried, what stops it, and what each retry reports. */
export interface DeliveryRetryOptions {
  readonly policy: DeliveryRetryPolicy;
  readonly signal?: AbortSignal;
  readonly onRetry: (attempt: number, delayMs: number, error: unknown) => void;
}

/**
 * Runs `post` until it succeeds or the attempts are spent, waiting with jittered exponential
 * backoff (or the platform's own retry-after) in between; the wait ends early when `signal` aborts.
 *
 * The whole of it — the platform's answer, a 429's retry-after, the backoff — is a wait outside
 * this process, so a turn delivering holds no CPU slot meanwhile (capacity/cpu-slots.ts): a
 * platform that is slow, down or rate-limiting in one conversation holds no other conversation back.
 */
export async function withDeliveryRetry<T>(
  post: () => Promise<T>,
  options: DeliveryRetryOptions,
): Promise<T> {
  const { policy, signal } = options;
  return awayFromCpu(() =>
    retryWithBackoff(() => untilAborted(post(), signal), {
      policy,
      ...(signal ? { signal } : {}),
      retryAfterMs: retryAfterMsOf,
      onRetry: options.onRetry,
    }),
  );
}

/**
 * Posts with `withDeliveryRetry`, once: whenever an earlier try may have landed, `find` looks for
 * it before the next try, and what it finds is the result. An earlier try may have landed when
 * `mayHaveLanded` says so (an earlier attempt of the work was posting when it stopped), or after a
 * failure the platform may have acted on before failing to say so (a 500, a cut connection):
 * anything but a refusal with a retry-after (a rate limit), which did nothing.
 */
export function postOnce<T>(
  post: () => Promise<T>,
  find: () => Promise<T | undefined>,
  options: DeliveryRetryOptions & { readonly mayHaveLanded?: boolean },
): Promise<T> {
  let mayHaveLanded = options.mayHaveLanded === true;
  return withDeliveryRetry(async () => {
    if (mayHaveLanded) {
      const landed = await find();
      if (landed !== undefined) return landed;
    }
    try {
      return await post();
    } catch (error) {
      mayHaveLanded ||= retryAfterMsOf(error) === undefined;
      throw error;
    }
  }, options);
}
