import { stringify } from "node:querystring";
import { requestFetch } from "@switchboard/core/adapter";

/*
 * matrix-bot-sdk sends every HTTP request through a `request`-compatible function (the deprecated
 * `request` package unless replaced with `setRequestFn`). This one runs them on core's
 * `requestFetch` (`node:http` behind the `fetch` interface, without the per-call cost of Node's
 * `fetch`: every sync and every send is a call). It covers the options the SDK passes —
 * uri, method, qs (encoded as `request` did with `useQuerystring`: node:querystring, arrays
 * repeated), headers, body, timeout, and `encoding: null` for a Buffer body — and answers like
 * `request` did: an error when there is no response, otherwise `(null, response, body)` whatever
 * the status.
 */

export interface RequestParams {
  readonly uri: string;
  readonly method?: string;
  readonly qs?: Record<string, unknown> | null;
  readonly headers?: Record<string, string>;
  readonly body?: string | Buffer;
  readonly timeout?: number;
  /** `null`: the body is returned as a Buffer; otherwise as a UTF-8 string. */
  readonly encoding?: null | string;
}

export interface RequestResponse {
  readonly statusCode: number;
  readonly headers: Record<string, string>;
  body: string | Buffer;
}

export type RequestCallback = (
  error: Error | null,
  response?: RequestResponse,
  body?: string | Buffer,
) => void;

/** A request that got no answer in time. */
export class RequestTimeoutError extends Error {
  readonly code = "ETIMEDOUT";
  constructor(method: string, url: string, timeoutMs: number) {
    super(`${method} ${url} got no answer within ${timeoutMs} ms`);
    this.name = "RequestTimeoutError";
  }
}

function urlOf(params: RequestParams): string {
  if (!params.qs) return params.uri;
  const defined = Object.fromEntries(Object.entries(params.qs).filter(([, value]) => value !== undefined));
  const query = stringify(defined as Parameters<typeof stringify>[0]);
  if (query === "") return params.uri;
  return `${params.uri}${params.uri.includes("?") ? "&" : "?"}${query}`;
}

async function perform(params: RequestParams): Promise<RequestResponse> {
  const method = params.method ?? "GET";
  const url = urlOf(params);
  const timeoutMs = params.timeout;
  let response: Response;
  try {
    response = await requestFetch(url, {
      method,
      headers: params.headers ?? {},
      ...(params.body === undefined ? {} : { body: params.body }),
      ...(timeoutMs ? { signal: AbortSignal.timeout(timeoutMs) } : {}),
    });
  } catch (error) {
    if (error instanceof Error && error.name === "TimeoutError" && timeoutMs)
      throw new RequestTimeoutError(method, params.uri, timeoutMs);
    // fetch's "fetch failed" hides the reason (ECONNREFUSED…) in `cause`; say it.
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause : undefined;
    throw cause ?? error;
  }
  const bytes = Buffer.from(await response.arrayBuffer());
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return {
    statusCode: response.status,
    headers,
    body: params.encoding === null ? bytes : bytes.toString("utf8"),
  };
}

/** The function to give `setRequestFn`. */
export function fetchRequest(params: RequestParams, callback: RequestCallback): void {
  perform(params).then(
    (response) => callback(null, response, response.body),
    (error: unknown) => callback(error instanceof Error ? error : new Error(String(error))),
  );
}
