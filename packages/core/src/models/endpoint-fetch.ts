/**
 * The fetch every remote chat model is built with: each request to the provider first gets a place
 * from its endpoint's limiter, holds it until the answer has been read to the end (a streamed answer
 * included), and tells the limiter how it went — answered, rate limited (with the provider's
 * Retry-After), overloaded, timed out. Being the provider SDKs' own `fetch`, it sees every model
 * call of the process whoever makes it, with the real status codes and headers.
 *
 * The turn a request is for holds no CPU slot while the request waits for capacity, for the
 * provider's first byte and between pieces of the answer, and holds one to handle each piece: a
 * hundred answers arriving at once are read a few at a time, with intake served in between.
 *
 * The per-request timeout lives here too, counted from the moment the request is sent: the SDKs'
 * own timers would count the time spent waiting in line as well.
 */

import { awayFromCpu, currentTurnKey } from "../capacity/cpu-slots.ts";
import type { CallOutcome, EndpointLimiter } from "../capacity/endpoint-limiter.ts";
import { requestFetch } from "../http/request-fetch.ts";
import { currentAttemptClock } from "./attempt-clock.ts";
import { HeldTimeout } from "./held-timeout.ts";
import { connectionDropped, retryAfterMsOf } from "./retry-policy.ts";

export interface EndpointFetchOptions {
  /** The fetch that sends the request (tests answer without a network); http/request-fetch.ts when absent. */
  readonly fetch?: typeof fetch | undefined;
  /** One request, from sending to its last byte. */
  readonly requestTimeoutMs: number;
  readonly now?: () => number;
}

/** The reason a request's signal carries when its own timer ran out. */
export function requestTimeoutReason(ms: number): DOMException {
  return new DOMException(`the model did not answer within ${ms / 1000} s`, "TimeoutError");
}

export function endpointFetch(limiter: EndpointLimiter, options: EndpointFetchOptions): typeof fetch {
  const limited = limitedFetch(limiter, options);
  // The endpoint's circuit sees every request first: while it is open, nothing reaches the provider.
  return (input, init) => {
    const callerSignal = init?.signal ?? (input instanceof Request ? input.signal : undefined) ?? undefined;
    return limiter.circuit.run(
      () => limited(input, init),
      // A timed-out attempt (ours, or the model retry's attempt timers) counts; a caller giving up
      // does not. Nor does a dropped connection: a pooled connection the provider (or a proxy) closed
      // while it sat idle, or every connection reset at once by a restarting load balancer, says that
      // connection ended, not that the provider is down — counted, a burst of them opened the circuit
      // and failed every turn in flight. The model retry tries again on a new connection; a provider
      // that is down refuses new connections, times out or answers 5xx, and those count.
      (outcome) => {
        if ("value" in outcome) return providerFailed(outcome.value.status);
        if (callerSignal?.aborted) return abortOutcome(callerSignal) === "timeout";
        return !connectionDropped(outcome.error);
      },
    );
  };
}

/** 5xx (503/529 overload included) and 408: the provider is failing, not the request. */
function providerFailed(status: number): boolean {
  return status >= 500 || status === 408;
}

function limitedFetch(limiter: EndpointLimiter, options: EndpointFetchOptions): typeof fetch {
  const now = options.now ?? Date.now;
  return async (input, init) => {
    const callerSignal = init?.signal ?? (input instanceof Request ? input.signal : undefined) ?? undefined;
    const clock = currentAttemptClock();
    let paused = false;
    // Waiting for capacity and for the provider's first byte, a turn holds no CPU slot.
    const call = await awayFromProvider([clock], () =>
      limiter.acquire({
        signal: callerSignal,
        tokens: estimateTokens(init?.body),
        conversation: currentTurnKey(),
        onQueued: () => {
          paused = true;
          clock?.pause();
        },
      }),
    );
    if (paused) clock?.resume();
    const timer = new AbortController();
    const timeout = new HeldTimeout(options.requestTimeoutMs, () =>
      timer.abort(requestTimeoutReason(options.requestTimeoutMs)),
    );
    const timers = [clock, timeout];
    const signal = callerSignal ? AbortSignal.any([callerSignal, timer.signal]) : timer.signal;
    const finish = (outcome: CallOutcome, retryAfterMs?: number) => {
      timeout.clear();
      call.finish(outcome, { retryAfterMs });
    };
    let response: Response;
    try {
      response = await awayFromProvider(timers, () =>
        (options.fetch ?? requestFetch)(input, { ...init, signal }),
      );
    } catch (error) {
      finish(signal.aborted ? abortOutcome(signal) : "failed");
      throw error;
    }
    if (!response.ok) {
      const outcome = statusOutcome(response.status);
      finish(outcome, outcome === "failed" ? undefined : retryAfterMsOf({ headers: response.headers }, now));
      return response;
    }
    return watchBody(response, signal, finish, timers);
  };
}

/** Timers a wait for this process's CPU must not count: the attempt's and the request's own. */
type ProviderTimers = ReadonlyArray<{ hold(): void; release(): void } | undefined>;

/**
 * Waits on the provider (or its endpoint's capacity) without the turn's CPU slot, then takes one
 * again. Once the provider has answered, the timers stand still until the slot is back: under a
 * busy process the wait for a slot can be long, and it is ours — counted, it would "time out" a
 * provider that answered at once, and the turn would be retried or given up for it.
 */
async function awayFromProvider<T>(timers: ProviderTimers, work: () => Promise<T>): Promise<T> {
  let held = false;
  try {
    return await awayFromCpu(async () => {
      const result = await work();
      held = true;
      for (const timer of timers) timer?.hold();
      return result;
    });
  } finally {
    if (held) for (const timer of timers) timer?.release();
  }
}

function statusOutcome(status: number): CallOutcome {
  if (status === 429) return "rate_limited";
  // 529: Anthropic's "overloaded".
  if (status === 503 || status === 529) return "overloaded";
  if (status === 408 || status === 504) return "timeout";
  return "failed";
}

/** A timer's abort (ours, or the retry's attempt timers) is a timeout; any other is the caller giving up. */
function abortOutcome(signal: AbortSignal): CallOutcome {
  const reason: unknown = signal.reason;
  return reason instanceof DOMException && reason.name === "TimeoutError" ? "timeout" : "cancelled";
}

/** The same response, whose place is given back once its body was read to the end, failed or was dropped. */
function watchBody(
  response: Response,
  signal: AbortSignal,
  finish: (outcome: CallOutcome) => void,
  timers: ProviderTimers,
): Response {
  const source = response.body;
  if (!source) {
    finish("ok");
    return response;
  }
  let done = false;
  /** Part of the answer came: a caller that stops reading after that (the SDKs do at the end of a stream) was answered. */
  let answering = false;
  const stopped = () => {
    const outcome = signal.aborted ? abortOutcome(signal) : "cancelled";
    return outcome === "cancelled" && answering ? "ok" : outcome;
  };
  const end = (outcome: CallOutcome) => {
    if (done) return;
    done = true;
    signal.removeEventListener("abort", onAbort);
    finish(outcome);
  };
  const onAbort = () => end(stopped());
  signal.addEventListener("abort", onAbort, { once: true });
  const reader = source.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        // Between pieces of the answer the turn holds no CPU slot; it takes one to handle each piece.
        const chunk = await awayFromProvider(timers, () => reader.read());
        if (chunk.done) {
          end("ok");
          controller.close();
        } else {
          answering = true;
          controller.enqueue(chunk.value);
        }
      } catch (error) {
        end(signal.aborted ? stopped() : "failed");
        controller.error(error);
      }
    },
    cancel(reason) {
      end(stopped());
      return reader.cancel(reason);
    },
  });
  const watched = new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
  // The SDKs name the URL in their errors; a constructed Response has none of its own.
  Object.defineProperty(watched, "url", { value: response.url });
  return watched;
}

/** About 4 characters a token, over the request body (the prompt, as JSON). */
function estimateTokens(body: RequestInit["body"]): number {
  if (typeof body === "string") return Math.ceil(body.length / 4);
  if (body instanceof Uint8Array || body instanceof ArrayBuffer) return Math.ceil(body.byteLength / 4);
  return 0;
}
