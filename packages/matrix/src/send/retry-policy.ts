import type { BackoffPolicy } from "@switchboard/core/adapter";
import type { RequestFailure } from "../sdk/request-failure.ts";

/** Six attempts, waits from 0.5 s doubling to at most 10 s (jittered; a server's retry_after_ms wins). */
export const MATRIX_SEND_RETRY: BackoffPolicy = { attempts: 6, baseDelayMs: 500, maxDelayMs: 10_000 };

/**
 * Whether another try can help a send. Rate limits and server errors are retried (honouring the
 * server's `retry_after_ms`); so are requests that got no answer at all, since the transaction id
 * makes a repeat harmless. Anything else (forbidden, unknown room, too large) is final.
 */
export function isRetryableSend(failure: RequestFailure): boolean {
  const rateLimited = failure.status === 429 || failure.errcode === "M_LIMIT_EXCEEDED";
  const serverError = failure.status !== undefined && failure.status >= 500;
  const unanswered = failure.status === undefined && failure.errcode === undefined;
  return rateLimited || serverError || unanswered;
}
