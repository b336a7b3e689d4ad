import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { verifySignature } from "./request-signature.ts";

/**
 * What the one signed request said about the signing secret: Slack signs with the secret of the
 * app the Request URL was entered in, so a good signature proves the secret is that app's.
 */
export type RequestUrlVerdict =
  /** Signed with this secret (Slack's url_verification answered with its challenge, or any other signed request). */
  | { readonly outcome: "matches"; readonly urlVerification: boolean }
  /** Signed, but not with this secret. */
  | { readonly outcome: "wrong-secret" }
  /** Signed, but its timestamp is off by more than Slack's five minutes: this machine's clock. */
  | { readonly outcome: "clock"; readonly reason: string }
  | { readonly outcome: "timed-out" }
  /** The signal ended the wait (the person skipped it). */
  | { readonly outcome: "stopped" };

/** Where to listen, for how long, and the secret to check Slack's signature with. */
export interface RequestUrlCheckOptions {
  /** The secret as the person typed it. */
  readonly signingSecret: string;
  /** The port Slack's requests reach on this machine (the adapter's `port`). */
  readonly port: number;
  /** The interface to listen on (the adapter's `host`). */
  readonly host: string;
  /** The Request URL's path (the adapter's `eventsPath`). */
  readonly path: string;
  /** How long to wait for Slack's request. */
  readonly timeoutMs: number;
  /** Ends the wait early (the person skipped it). */
  readonly signal?: AbortSignal;
}

/** The port to listen on is taken (Switchboard running already?) or not ours to take. */
export class RequestUrlListenError extends Error {
  constructor(port: number, cause: NodeJS.ErrnoException) {
    super(
      cause.code === "EADDRINUSE"
        ? `port ${port} is in use (is Switchboard already running?)`
        : `cannot listen on port ${port} (${cause.code ?? cause.message})`,
      { cause },
    );
    this.name = "RequestUrlListenError";
  }
}

const BODY_LIMIT_BYTES = 1024 * 1024;

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === "string" ? value : undefined;
}

async function readBody(request: IncomingMessage): Promise<Buffer | undefined> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of request) {
    size += (part as Buffer).length;
    if (size > BODY_LIMIT_BYTES) return undefined;
    parts.push(part as Buffer);
  }
  return Buffer.concat(parts);
}

/** Slack's url_verification challenge, when the body is one. */
function challengeOf(body: Buffer): string | undefined {
  try {
    const parsed = JSON.parse(body.toString("utf8")) as { type?: unknown; challenge?: unknown };
    return parsed.type === "url_verification" && typeof parsed.challenge === "string"
      ? parsed.challenge
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Listens where Slack's requests will arrive, for a bounded time, until the first signed request
 * comes — the url_verification Slack sends when someone enters the Request URL in the app's
 * settings — and checks its signature with the same verification the adapter runs on every request.
 * A matching url_verification is answered with its challenge, so Slack marks the URL verified; a
 * mismatch is answered 401, as the running adapter would. Requests without Slack's signature
 * headers (a prober, a health check) are refused and the wait goes on.
 */
export async function awaitSignedRequest(options: RequestUrlCheckOptions): Promise<RequestUrlVerdict> {
  let settle: (verdict: RequestUrlVerdict) => void = () => {};
  const verdict = new Promise<RequestUrlVerdict>((resolve) => {
    settle = resolve;
  });
  const answer = (response: ServerResponse, status: number, body?: string) => {
    response.writeHead(status, body === undefined ? {} : { "content-type": "text/plain" });
    response.end(body);
  };
  const server = createServer((request, response) => {
    void (async () => {
      if ((request.url ?? "").split("?")[0] !== options.path || request.method !== "POST")
        return answer(response, 404);
      const rawBody = await readBody(request);
      if (rawBody === undefined) return answer(response, 413);
      const now = Math.floor(Date.now() / 1000);
      const checked = verifySignature(
        options.signingSecret,
        {
          timestamp: header(request, "x-slack-request-timestamp"),
          signature: header(request, "x-slack-signature"),
          rawBody,
        },
        now,
      );
      if (checked.ok) {
        const challenge = challengeOf(rawBody);
        answer(response, 200, challenge ?? "");
        return settle({ outcome: "matches", urlVerification: challenge !== undefined });
      }
      answer(response, 401);
      if (checked.reason === "signature mismatch") settle({ outcome: "wrong-secret" });
      else if (checked.reason !== "unsigned") settle({ outcome: "clock", reason: checked.reason });
    })().catch(() => answer(response, 400));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) =>
      reject(new RequestUrlListenError(options.port, error)),
    );
    server.listen({ port: options.port, host: options.host }, () => resolve());
  });
  const timer = setTimeout(() => settle({ outcome: "timed-out" }), options.timeoutMs);
  const stop = () => settle({ outcome: "stopped" });
  if (options.signal?.aborted) stop();
  options.signal?.addEventListener("abort", stop, { once: true });
  try {
    return await verdict;
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", stop);
    // The answer went out before the verdict was settled; close once it has left.
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    setTimeout(() => server.closeAllConnections(), 1_000).unref();
    await closed;
  }
}
