/**
 * The `fetch` given to the SDKs that send this process's HTTP calls on every turn: the model
 * providers' (through models/endpoint-fetch.ts), Slack's Web API client and matrix-bot-sdk. Node's
 * own `fetch` makes every request body a web stream written chunk by chunk, and wraps the response
 * in the Fetch standard's machinery; for a small JSON or form body that costs several times the
 * call itself (measured on a local server, four rounds of 1,000: a JSON post and a streamed answer
 * took 515–740 µs with `fetch`, 295–490 µs through this). Here a request whose body is already in memory goes out with
 * `node:http` on a keep-alive agent, in one write, and its answer comes back as a standard
 * `Response` whose body streams as it arrives.
 *
 * Why not undici's `request()`, which is as quick: importing the undici package installs its own
 * agent as the process-wide dispatcher Node's `fetch` uses (one global shared by every undici
 * copy). With undici 7 loaded before Node's 6, a discord.js file upload in the same process no
 * longer went out. `node:http` changes nothing for anyone else.
 *
 * What a caller of `fetch` relies on is kept: network failures reject with `TypeError("fetch
 * failed")` and the cause underneath; an aborted signal rejects with its reason, before the answer
 * or while its body is read; redirects follow, fail or come back as the caller asked; a body
 * without a type is sent as text. Everything this path does not handle — a `Request` object, a
 * streamed or multipart body, a response to decompress — goes to Node's `fetch` unchanged.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { Readable } from "node:stream";

const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);
/** Statuses whose response has no body (the Response constructor refuses one). */
const NULL_BODY_STATUSES: ReadonlySet<number> = new Set([101, 204, 205, 304]);

/**
 * Connections kept open between calls, as `fetch` keeps them, and closed after 4 s unused (or
 * sooner, when the server's Keep-Alive says so), as `fetch` closes them: a connection left open
 * longer is one the server may close as it is reused. The timeout only closes idle connections;
 * a request waiting on a slow answer is not cut.
 */
const IDLE_CONNECTION_MS = 4_000;
const httpAgent = new HttpAgent({ keepAlive: true, timeout: IDLE_CONNECTION_MS });
const httpsAgent = new HttpsAgent({ keepAlive: true, timeout: IDLE_CONNECTION_MS });

type FetchInput = Parameters<typeof fetch>[0];

/**
 * A drop-in `fetch` for SDKs that accept one: requests with a body already in memory go out through
 * `node:http`; every other request goes to Node's `fetch`.
 */
export const requestFetch: typeof fetch = async (input, init) => {
  const plain = plainRequest(input, init);
  if (!plain) return fetch(input, init);
  const signal = init?.signal ?? undefined;
  signal?.throwIfAborted();
  let answer: IncomingMessage;
  try {
    answer = await send(plain, signal);
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    throw new TypeError("fetch failed", { cause: error });
  }
  const status = answer.statusCode ?? 0;
  if (REDIRECT_STATUSES.has(status) && init?.redirect !== "manual") {
    answer.resume();
    if (init?.redirect === "error")
      throw new TypeError("fetch failed", {
        cause: new Error(
          `${plain.url.href} answered with a redirect (${status}), and the caller refuses them`,
        ),
      });
    // Following a redirect (method and body rules included) is fetch's job; it is rare enough here.
    return fetch(input, init);
  }
  const empty = NULL_BODY_STATUSES.has(status) || plain.method === "HEAD";
  if (empty) answer.resume();
  // Node's adapter, not the body as an async iterable: a reader that cancels mid-answer (the SDKs do,
  // at the end of a stream) must end the stream once, not see it closed again under it.
  const response = new Response(empty ? null : (Readable.toWeb(answer) as ReadableStream<Uint8Array>), {
    status,
    statusText: answer.statusMessage ?? "",
    headers: headersOf(answer),
  });
  // A constructed Response has no URL; the SDKs read it (Slack's client, to recognise a file download).
  Object.defineProperty(response, "url", { value: plain.url.href });
  return response;
};

interface PlainRequest {
  readonly url: URL;
  readonly method: string;
  readonly headers: Record<string, string>;
  readonly body: string | Uint8Array | undefined;
}

/** The request when this path can send it as `fetch` would; undefined when `fetch` must. */
function plainRequest(input: FetchInput, init: RequestInit | undefined): PlainRequest | undefined {
  if (input instanceof Request) return undefined;
  const url = input instanceof URL ? input : URL.canParse(input) ? new URL(input) : undefined;
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) return undefined;
  const body = init?.body ?? undefined;
  if (body !== undefined && typeof body !== "string" && !(body instanceof Uint8Array)) return undefined;
  const method = (init?.method ?? "GET").toUpperCase();
  // fetch refuses these itself, with its own error.
  if (body !== undefined && (method === "GET" || method === "HEAD")) return undefined;
  const headers: Record<string, string> = {};
  for (const [name, value] of new Headers(init?.headers)) headers[name] = value;
  // fetch decompresses what it asked to be compressed; this path asks for nothing compressed.
  if (headers["accept-encoding"] !== undefined) return undefined;
  if (typeof body === "string" && headers["content-type"] === undefined)
    headers["content-type"] = "text/plain;charset=UTF-8";
  // As fetch sends it: the length of the body, and 0 for a request that may carry one but has none.
  const length =
    body === undefined ? 0 : typeof body === "string" ? Buffer.byteLength(body) : body.byteLength;
  if (body !== undefined || (method !== "GET" && method !== "HEAD"))
    headers["content-length"] = String(length);
  return { url, method, headers, body };
}

/**
 * Sends the request in one write; resolves with the answer's head, its body still to be read. One
 * abort listener covers both halves, as fetch's abort does: before the answer it ends the request,
 * after it the body (which then errors with the signal's reason), until the body is done.
 */
function send(plain: PlainRequest, signal: AbortSignal | undefined): Promise<IncomingMessage> {
  const https = plain.url.protocol === "https:";
  return new Promise((resolve, reject) => {
    let answer: IncomingMessage | undefined;
    const request = (https ? httpsRequest : httpRequest)(
      plain.url,
      { method: plain.method, headers: plain.headers, agent: https ? httpsAgent : httpAgent },
      (head) => {
        answer = head;
        head.once("close", stop);
        resolve(head);
      },
    );
    const onAbort = () => {
      if (signal) (answer ?? request).destroy(abortError(signal));
    };
    const stop = () => signal?.removeEventListener("abort", onAbort);
    signal?.addEventListener("abort", onAbort, { once: true });
    request.once("error", (error) => {
      stop();
      reject(error);
    });
    request.end(plain.body);
  });
}

/** What a stream is destroyed with on an abort: the signal's reason, or fetch's error when it is no Error. */
function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new DOMException("This operation was aborted", "AbortError");
}

/** Every header of the answer, a repeated one (set-cookie) as several values. */
function headersOf(answer: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, values] of Object.entries(answer.headersDistinct))
    for (const value of values ?? []) headers.append(name, value);
  return headers;
}
