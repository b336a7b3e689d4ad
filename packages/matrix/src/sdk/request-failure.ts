/** What we can tell about a failed homeserver request, whatever shape the SDK threw it in. */
export interface RequestFailure {
  /** HTTP status; absent when the request never got an answer (connection refused, reset…). */
  readonly status?: number;
  /** The Matrix error code, e.g. M_LIMIT_EXCEEDED. */
  readonly errcode?: string;
  /** How long the homeserver asked us to wait before retrying. */
  readonly retryAfterMs?: number;
  readonly message: string;
}

function field(value: unknown, key: string): unknown {
  return value !== null && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined;
}

function retryAfterHeaderMs(headers: unknown): number | undefined {
  const value = field(headers, "retry-after");
  const seconds = typeof value === "string" ? Number(value) : undefined;
  return seconds !== undefined && Number.isFinite(seconds) ? seconds * 1000 : undefined;
}

/**
 * The SDK throws a MatrixError (errcode, statusCode, retryAfterMs) when the body has an errcode,
 * the raw HTTP response for any other non-2xx answer, and the transport's error when there was no
 * answer at all.
 */
export function describeRequestFailure(error: unknown): RequestFailure {
  const status = field(error, "statusCode");
  const body = field(error, "body");
  const errcode = field(error, "errcode") ?? field(body, "errcode");
  const retryAfter = field(error, "retryAfterMs") ?? field(body, "retry_after_ms");
  const retryAfterMs =
    typeof retryAfter === "number" ? retryAfter : retryAfterHeaderMs(field(error, "headers"));
  const explanation = field(error, "error") ?? field(body, "error");
  const message =
    typeof errcode === "string"
      ? `${errcode}: ${typeof explanation === "string" ? explanation : "no explanation given"}`
      : typeof status === "number"
        ? `HTTP ${status}`
        : error instanceof Error
          ? error.message
          : String(error);
  return {
    ...(typeof status === "number" ? { status } : {}),
    ...(typeof errcode === "string" ? { errcode } : {}),
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    message,
  };
}
