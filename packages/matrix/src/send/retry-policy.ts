import type { RequestFailure } from "../sdk/request-failure.ts";

export const MAX_SEND_ATTEMPTS = 6;
const BASE_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 10_000;

/**
 * How long to wait before trying a send again, or null when another try cannot help. Rate limits
 * and server errors are retried, honouring the server's `retry_after_ms`; so are requests that got
 * no answer at all, since the transaction id makes a repeat harmless. Anything else (forbidden,
 * unknown room, too large) is final.
 */
export function retryDelayMs(failure: RequestFailure, attempt: number): number | null {
  if (attempt >= MAX_SEND_ATTEMPTS) return null;
  const backoff = Math.min(BASE_BACKOFF_MS * 2 ** (attempt - 1), MAX_BACKOFF_MS);
  const rateLimited = failure.status === 429 || failure.errcode === "M_LIMIT_EXCEEDED";
  const serverError = failure.status !== undefined && failure.status >= 500;
  const unanswered = failure.status === undefined && failure.errcode === undefined;
  if (!rateLimited && !serverError && !unanswered) return null;
  return failure.retryAfterMs ?? backoff;
}
