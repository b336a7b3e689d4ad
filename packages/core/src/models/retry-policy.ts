/**
 * Which failed model calls are worth another attempt, and how long the provider asked us to wait.
 * Pure and table-tested; retry.ts does the waiting.
 *
 * Retried: rate limits (429 that is not an exhausted quota), timeouts, network failures, 5xx.
 * Never retried: any other 4xx (a bad key or a bad request fails the same way every time),
 * a call the caller cancelled, and errors that are not about the provider at all (bugs).
 */

export type ModelFailureKind = "rate_limited" | "timeout" | "network" | "server_error";

export interface RetryableFailure {
  readonly kind: ModelFailureKind;
  /** The provider's own wait hint, in milliseconds, when it sent one. */
  readonly retryAfterMs?: number;
}

/**
 * The other side closed or reset a connection the request had gone out on, before any answer: what
 * a pooled keep-alive connection meets when the server (or a proxy before it) dropped it while it
 * sat idle, or when a load balancer drops every connection at once on a restart.
 */
const DROPPED_CONNECTION_CODES = new Set(["ECONNRESET", "EPIPE", "UND_ERR_SOCKET"]);

/** Network failures, retried: a dropped connection, or one that could not be made. */
const NETWORK_CODES = new Set([
  ...DROPPED_CONNECTION_CODES,
  "ECONNREFUSED",
  "ECONNABORTED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ENETUNREACH",
  "EHOSTUNREACH",
]);

/** Was the request lost to a dropped connection (see DROPPED_CONNECTION_CODES)? Retried like any network failure. */
export function connectionDropped(error: unknown): boolean {
  return causeChain(error).some((link) => {
    const code = codeOf(link);
    return code !== undefined && DROPPED_CONNECTION_CODES.has(code);
  });
}

const TIMEOUT_CODES = new Set([
  "ETIMEDOUT",
  "ESOCKETTIMEDOUT",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
]);

// A 429 that will not clear by waiting: the account is out of credit.
const QUOTA_EXHAUSTED =
  /insufficient[_ -]?quota|quota (?:has been )?exhausted|credit balance|out of credits/i;

/**
 * @param callerAborted whether the caller's own signal is aborted: an abort the caller did not ask
 *   for can only come from a per-call timeout, and is retried as one.
 * @returns the failure when a retry may help, undefined when the error must surface as it is.
 */
export function classifyModelError(
  error: unknown,
  context: { callerAborted: boolean; now: () => number },
): RetryableFailure | undefined {
  if (context.callerAborted) return undefined;
  const chain = causeChain(error);
  const top = chain[0];
  if (!top) return undefined;

  const status = statusOf(top);
  if (status !== undefined) {
    if (status === 429) {
      if (QUOTA_EXHAUSTED.test(`${codeOf(top) ?? ""} ${messageOf(top)}`)) return undefined;
      return withHint("rate_limited", top, context.now);
    }
    if (status >= 500 && status <= 599) return withHint("server_error", top, context.now);
    if (status >= 400) return undefined;
  }

  const name = nameOf(top);
  if (/rate.?limit/i.test(name) && !/quota/i.test(name)) return withHint("rate_limited", top, context.now);
  if (name === "AbortError" || /timeout/i.test(name)) return { kind: "timeout" };

  for (const link of chain) {
    const code = codeOf(link);
    if (code && TIMEOUT_CODES.has(code)) return { kind: "timeout" };
    if (code && NETWORK_CODES.has(code)) return { kind: "network" };
    if (nameOf(link) === "APIConnectionError" || /^fetch failed/i.test(messageOf(link))) {
      return { kind: "network" };
    }
  }
  return undefined;
}

/**
 * The wait a provider asked for: `retry-after-ms` / `retry-after` headers (seconds or an HTTP date),
 * or `retryAfterMs` (ms) / `retryAfter` (seconds) fields on the error.
 */
export function retryAfterMsOf(error: unknown, now: () => number): number | undefined {
  if (!isObject(error)) return undefined;
  const headers = error.headers ?? (isObject(error.response) ? error.response.headers : undefined);
  const headerMs = Number(header(headers, "retry-after-ms"));
  if (header(headers, "retry-after-ms") !== undefined && Number.isFinite(headerMs) && headerMs >= 0) {
    return headerMs;
  }
  const retryAfter = header(headers, "retry-after");
  if (retryAfter !== undefined) {
    const seconds = Number(retryAfter);
    if (retryAfter.trim() !== "" && Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
    const date = Date.parse(retryAfter);
    if (!Number.isNaN(date)) return Math.max(0, date - now());
  }
  if (typeof error.retryAfterMs === "number" && error.retryAfterMs >= 0) return error.retryAfterMs;
  if (typeof error.retryAfter === "number" && error.retryAfter >= 0) return error.retryAfter * 1000;
  return undefined;
}

function withHint(kind: ModelFailureKind, error: unknown, now: () => number): RetryableFailure {
  const retryAfterMs = retryAfterMsOf(error, now);
  return retryAfterMs === undefined ? { kind } : { kind, retryAfterMs };
}

function header(headers: unknown, name: string): string | undefined {
  if (!isObject(headers)) return undefined;
  if (typeof headers.get === "function") {
    const value: unknown = headers.get(name);
    return typeof value === "string" ? value : undefined;
  }
  const entry = Object.entries(headers).find(([key]) => key.toLowerCase() === name);
  const value = entry?.[1];
  if (typeof value === "string") return value;
  return typeof value === "number" ? String(value) : undefined;
}

/**
 * The error and its causes, outermost first (at most five): SDK and fetch errors wrap the useful one
 * (`fetch failed` → cause `ECONNRESET`).
 */
export function causeChain(error: unknown): unknown[] {
  const chain: unknown[] = [];
  let current: unknown = error;
  while (current !== undefined && current !== null && chain.length < 5 && !chain.includes(current)) {
    chain.push(current);
    current = isObject(current) ? current.cause : undefined;
  }
  return chain;
}

function statusOf(error: unknown): number | undefined {
  if (!isObject(error)) return undefined;
  const candidates = [
    error.status,
    error.statusCode,
    error.status_code,
    isObject(error.response) ? error.response.status : undefined,
  ];
  for (const candidate of candidates) {
    const status = typeof candidate === "string" ? Number(candidate) : candidate;
    if (typeof status === "number" && Number.isInteger(status) && status >= 100) return status;
  }
  return undefined;
}

function codeOf(error: unknown): string | undefined {
  if (!isObject(error)) return undefined;
  if (typeof error.code === "string") return error.code;
  return isObject(error.error) && typeof error.error.code === "string" ? error.error.code : undefined;
}

function nameOf(error: unknown): string {
  return isObject(error) && typeof error.name === "string" ? error.name : "";
}

function messageOf(error: unknown): string {
  return isObject(error) && typeof error.message === "string" ? error.message : "";
}

function isObject(value: unknown): value is Record<string, unknown> & { get?: unknown } {
  return (typeof value === "object" || typeof value === "function") && value !== null;
}
