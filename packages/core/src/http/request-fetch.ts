/**
 * The `fetch` given to the SDKs that send this process's HTTP calls on every turn: the model
 * providers' (through models/endpoint-fetch.ts) and Slack's Web API client. Node's own `fetch` makes
 * every request body a web stream written chunk by chunk, and wraps the response in the Fetch
 * standard's machinery; for a small JSON or form body that costs several times the call itself
 * (measured on a local server: a JSON post and a streamed answer took 650–790 µs with `fetch`,
 * 230–330 µs through this). Here a request whose body is already in memory goes out with undici's
 * `request()` (the library Node's `fetch` is built on), in one write, and its answer comes back as
 * a standard `Response` whose body streams as it arrives.
 *
 * What a caller of `fetch` relies on is kept: network failures reject with `TypeError("fetch
 * failed")` and the cause underneath; an aborted signal rejects with its reason, before the answer
 * or while its body is read; redirects follow, fail or come back as the caller asked; a body
 * without a type is sent as text. Everything this path does not handle — a `Request` object, a
 * streamed or multipart body, a response to decompress — goes to Node's `fetch` unchanged.
 */
import { Readable } from "node:stream";
import { request } from "undici";

const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);
/** Statuses whose response has no body (the Response constructor refuses one). */
const NULL_BODY_STATUSES: ReadonlySet<number> = new Set([101, 204, 205, 304]);

type FetchInput = Parameters<typeof fetch>[0];

/**
 * A drop-in `fetch` for SDKs that accept one: requests with a body already in memory go out through
 * undici's `request()`; every other request goes to Node's `fetch`.
 */
export const requestFetch: typeof fetch = async (input, init) => {
  const plain = plainRequest(input, init);
  if (!plain) return fetch(input, init);
  const signal = init?.signal ?? undefined;
  signal?.throwIfAborted();
  let answer: Awaited<ReturnType<typeof request>>;
  try {
    answer = await request(plain.url, {
      method: plain.method,
      headers: plain.headers,
      body: plain.body,
      ...(signal ? { signal } : {}),
    });
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    throw new TypeError("fetch failed", { cause: error });
  }
  const { statusCode, headers, body } = answer;
  if (REDIRECT_STATUSES.has(statusCode) && init?.redirect !== "manual") {
    await body.dump();
    if (init?.redirect === "error")
      throw new TypeError("fetch failed", {
        cause: new Error(
          `${plain.url.href} answered with a redirect (${statusCode}), and the caller refuses them`,
        ),
      });
    // Following a redirect (method and body rules included) is fetch's job; it is rare enough here.
    return fetch(input, init);
  }
  if (signal) {
    // An abort while the body is read ends it with the signal's reason, as fetch does.
    const onAbort = () => body.destroy(signal.reason instanceof Error ? signal.reason : undefined);
    signal.addEventListener("abort", onAbort, { once: true });
    body.once("close", () => signal.removeEventListener("abort", onAbort));
  }
  const empty = NULL_BODY_STATUSES.has(statusCode) || plain.method === "HEAD";
  if (empty) await body.dump();
  // Node's adapter, not the body as an async iterable: a reader that cancels mid-answer (the SDKs do,
  // at the end of a stream) must end the stream once, not see it closed again under it.
  const response = new Response(empty ? null : (Readable.toWeb(body) as ReadableStream<Uint8Array>), {
    status: statusCode,
    headers: headersOf(headers),
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
  const headers: Record<string, string> = {};
  for (const [name, value] of new Headers(init?.headers)) headers[name] = value;
  // fetch decompresses what it asked to be compressed; this path asks for nothing compressed.
  if (headers["accept-encoding"] !== undefined) return undefined;
  if (typeof body === "string" && headers["content-type"] === undefined)
    headers["content-type"] = "text/plain;charset=UTF-8";
  const method = (init?.method ?? "GET").toUpperCase();
  // fetch refuses these itself, with its own error.
  if (body !== undefined && (method === "GET" || method === "HEAD")) return undefined;
  return { url, method, headers, body };
}

function headersOf(raw: Record<string, string | string[] | undefined>): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (Array.isArray(value)) for (const each of value) headers.append(name, each);
    else if (value !== undefined) headers.append(name, value);
  }
  return headers;
}
