/**
 * The calls one model endpoint (a provider's base URL) gets from this process: at most its adaptive
 * limit at once (see adaptive-limit.ts), none while the provider's Retry-After runs, and — when
 * the operator configured them — no more requests or tokens per minute than the provider publishes.
 * Callers wait in one line, in arrival order, whichever conversation, agent or background task they
 * come from: when the provider is the bottleneck, every conversation gets its turn in the order it
 * asked.
 */
import { AdaptiveLimit, type AdaptiveLimitSettings } from "./adaptive-limit.ts";
import { type CircuitPosition, EndpointCircuit, type EndpointCircuitSettings } from "./endpoint-circuit.ts";
import { type Permit, PermitQueue } from "./permit-queue.ts";

/** Caps an operator sets for one endpoint, as the provider publishes them. */
export interface EndpointCaps {
  readonly maxConcurrency?: number | undefined;
  readonly requestsPerMinute?: number | undefined;
  readonly tokensPerMinute?: number | undefined;
}

/** How a call ended, as far as the endpoint's limit cares. */
export type CallOutcome =
  /** Answered: evidence the limit can grow. */
  | "ok"
  /** 429: the provider's rate limit. */
  | "rate_limited"
  /** 503/529: the provider says it is overloaded. */
  | "overloaded"
  /** Nothing (or not all) came back in time. */
  | "timeout"
  /** Any other failure: says nothing about capacity. */
  | "failed"
  /** The caller gave up (a cancelled turn): says nothing about capacity. */
  | "cancelled";

type Congestion = "rate_limited" | "overloaded" | "timeout";

function isCongestion(outcome: CallOutcome): outcome is Congestion {
  return outcome === "rate_limited" || outcome === "overloaded" || outcome === "timeout";
}

export interface EndpointLimiterOptions {
  /** How the endpoint is named in metrics and logs (its base URL). */
  readonly endpoint: string;
  readonly adaptive: AdaptiveLimitSettings;
  readonly caps?: EndpointCaps;
  /** The longest pause a Retry-After may impose on every call to the endpoint. */
  readonly maxPauseMs: number;
  /** When repeated provider failures stop every call for a while (see endpoint-circuit.ts); absent: never. */
  readonly circuit?: EndpointCircuitSettings;
  readonly now?: () => number;
}

export interface EndpointCallOptions {
  readonly signal?: AbortSignal | undefined;
  /** Estimated tokens of the request (counted against `tokensPerMinute`). */
  readonly tokens?: number;
  /** The conversation the call is for, when it is a turn's: named in "waiting for the endpoint" reports. */
  readonly conversation?: string | undefined;
  /** Called once when the call has to wait for capacity. */
  readonly onQueued?: () => void;
}

/** One admitted call: `finish` it exactly once with its outcome (later calls do nothing). */
export interface EndpointCall {
  finish(outcome: CallOutcome, hint?: { retryAfterMs?: number | undefined }): void;
}

/** What the endpoint looks like now, for metrics, /health and the recovery loop's report. */
export interface EndpointState {
  readonly endpoint: string;
  readonly limit: number;
  readonly inFlight: number;
  readonly queued: number;
  /** When new calls may start again after a Retry-After; absent when not paused. */
  readonly pausedUntil?: number;
  /** Conversations with a call waiting in line (a turn's calls only). */
  readonly waitingConversations: readonly string[];
  /** Congestion signals since start, by kind (each halving counts once in `reductions`). */
  readonly congestion: Readonly<Record<Congestion, number>>;
  readonly reductions: number;
  /** The endpoint's circuit: `open` while calls are refused after repeated provider failures (absent: closed). */
  readonly circuit?: CircuitPosition;
  /** How often the circuit opened since start. */
  readonly circuitOpened?: number;
}

const MINUTE_MS = 60_000;

export class EndpointLimiter {
  readonly endpoint: string;
  /** Every request to the endpoint runs through it (endpoint-fetch.ts). */
  readonly circuit: EndpointCircuit;
  readonly #options: EndpointLimiterOptions;
  readonly #now: () => number;
  readonly #limit: AdaptiveLimit;
  readonly #permits: PermitQueue<number>;
  /** Calls started within the last minute, oldest first (for the per-minute caps). */
  readonly #window: { at: number; tokens: number }[] = [];
  readonly #waiting = new Map<object, string>();
  readonly #congestion: Record<Congestion, number> = { rate_limited: 0, overloaded: 0, timeout: 0 };
  #reductions = 0;
  #pausedUntil = 0;

  constructor(options: EndpointLimiterOptions) {
    this.endpoint = options.endpoint;
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#limit = new AdaptiveLimit(options.adaptive);
    this.circuit = new EndpointCircuit(
      options.endpoint,
      options.circuit ?? { openAfterFailures: 0, halfOpenAfterMs: 0 },
    );
    this.#permits = new PermitQueue<number>({
      limit: this.#effectiveLimit(),
      holdHead: (tokens) => this.#holdFor(tokens ?? 0),
      onAdmit: (tokens) => this.#window.push({ at: this.#now(), tokens: tokens ?? 0 }),
    });
  }

  /** Waits for the endpoint's capacity; the caller must `finish` the call it gets. */
  async acquire(options: EndpointCallOptions = {}): Promise<EndpointCall> {
    const ticket = {};
    if (options.conversation !== undefined) this.#waiting.set(ticket, options.conversation);
    let permit: Permit;
    try {
      permit = await this.#permits.acquire({
        signal: options.signal,
        cost: options.tokens ?? 0,
        ...(options.onQueued ? { onQueued: options.onQueued } : {}),
      });
    } finally {
      this.#waiting.delete(ticket);
    }
    const epoch = this.#limit.epoch;
    let finished = false;
    return {
      finish: (outcome, hint) => {
        if (finished) return;
        finished = true;
        this.#finish(outcome, epoch, hint?.retryAfterMs);
        permit.release();
      },
    };
  }

  state(): EndpointState {
    const now = this.#now();
    return {
      endpoint: this.endpoint,
      limit: this.#permits.limit,
      inFlight: this.#permits.inUse,
      queued: this.#permits.waiting,
      ...(this.#pausedUntil > now ? { pausedUntil: this.#pausedUntil } : {}),
      waitingConversations: [...new Set(this.#waiting.values())],
      congestion: { ...this.#congestion },
      reductions: this.#reductions,
      circuit: this.circuit.position,
      circuitOpened: this.circuit.opened,
    };
  }

  #finish(outcome: CallOutcome, epoch: number, retryAfterMs: number | undefined): void {
    const now = this.#now();
    if (outcome === "ok") this.#limit.succeeded(this.#permits.inUse, now);
    if (isCongestion(outcome)) {
      this.#congestion[outcome] += 1;
      if (this.#limit.congested(epoch, this.#permits.inUse, now)) this.#reductions += 1;
    }
    if (
      retryAfterMs !== undefined &&
      retryAfterMs > 0 &&
      (outcome === "rate_limited" || outcome === "overloaded")
    ) {
      // The provider asked every caller with this key to wait: nobody here starts a call before then.
      const until = now + Math.min(retryAfterMs, this.#options.maxPauseMs);
      this.#pausedUntil = Math.max(this.#pausedUntil, until);
    }
    this.#permits.limit = this.#effectiveLimit();
    this.#permits.wake();
  }

  #effectiveLimit(): number {
    const cap = this.#options.caps?.maxConcurrency;
    return cap === undefined ? this.#limit.value : Math.min(cap, this.#limit.value);
  }

  /** How long the next call must still wait although a permit is free: a pause, or a full minute window. */
  #holdFor(tokens: number): number {
    const now = this.#now();
    let hold = Math.max(0, this.#pausedUntil - now);
    while (this.#window.length > 0 && (this.#window[0]?.at ?? now) <= now - MINUTE_MS) this.#window.shift();
    const caps = this.#options.caps;
    const oldest = this.#window[0];
    if (!oldest) return hold;
    if (caps?.requestsPerMinute !== undefined && this.#window.length >= caps.requestsPerMinute) {
      const index = this.#window.length - caps.requestsPerMinute;
      hold = Math.max(hold, (this.#window[index]?.at ?? now) + MINUTE_MS - now);
    }
    if (caps?.tokensPerMinute !== undefined) {
      // A request larger than the whole budget still goes, alone, once the window is empty.
      let used = this.#window.reduce((sum, entry) => sum + entry.tokens, 0);
      for (const entry of this.#window) {
        if (used + tokens <= caps.tokensPerMinute) break;
        used -= entry.tokens;
        hold = Math.max(hold, entry.at + MINUTE_MS - now);
      }
    }
    return hold;
  }
}
