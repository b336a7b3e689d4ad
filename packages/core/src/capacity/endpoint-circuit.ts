/**
 * The circuit of one model endpoint: after `openAfterFailures` provider failures in a row (5xx,
 * 503/529 overload, no answer in time, a refused or unreachable connection — endpoint-fetch.ts says
 * what counts) it opens, and for `halfOpenAfterMs` no call of this process reaches the provider —
 * each fails at once with `ModelCircuitOpenError`, which the model retry turns into "unavailable"
 * without waiting out its backoff, and the engine into a retry later. Then one call is let through
 * (half-open): an answer closes the circuit, a failure opens it again. A provider that is down for
 * an hour gets one probe per interval from this process, not every turn's four attempts.
 *
 * The state machine is cockatiel's (`circuitBreaker` with a `ConsecutiveBreaker`): a small,
 * well-kept library whose half-open step admits exactly one probe. It sits inside the endpoint's
 * limiter (endpoint-fetch.ts runs every request through it), so whoever calls the provider —
 * a turn, memory, a summary — shares the one circuit, as they share the one concurrency limit.
 * 429 does not count: a rate limit is capacity, which the limiter already paces.
 */
import {
  BrokenCircuitError,
  type CircuitBreakerPolicy,
  CircuitState,
  ConsecutiveBreaker,
  circuitBreaker,
  handleWhen,
} from "cockatiel";

export interface EndpointCircuitSettings {
  /** Provider failures in a row that open the circuit (0: never opens). */
  readonly openAfterFailures: number;
  /** How long it stays open before one probe is let through. */
  readonly halfOpenAfterMs: number;
}

export type CircuitPosition = "closed" | "open" | "half-open";

/** A call refused because the endpoint's circuit is open: nothing was sent to the provider. */
export class ModelCircuitOpenError extends Error {
  readonly endpoint: string;
  constructor(endpoint: string) {
    super(`the model endpoint ${endpoint} failed repeatedly; calls are paused for a while (circuit open)`);
    this.name = "ModelCircuitOpenError";
    this.endpoint = endpoint;
  }
}

/** A provider failure, thrown inside the circuit so it counts, and unwrapped on the way out. */
class CountedFailure extends Error {
  readonly outcome: { value: unknown } | { error: unknown };
  constructor(outcome: { value: unknown } | { error: unknown }) {
    super("provider failure");
    this.outcome = outcome;
  }
}

export class EndpointCircuit {
  readonly endpoint: string;
  readonly #policy: CircuitBreakerPolicy | undefined;
  #opened = 0;

  constructor(endpoint: string, settings: EndpointCircuitSettings) {
    this.endpoint = endpoint;
    if (settings.openAfterFailures <= 0) return;
    this.#policy = circuitBreaker(
      handleWhen((error) => error instanceof CountedFailure),
      {
        halfOpenAfter: settings.halfOpenAfterMs,
        breaker: new ConsecutiveBreaker(settings.openAfterFailures),
      },
    );
    this.#policy.onBreak(() => {
      this.#opened += 1;
    });
  }

  /**
   * Runs `call` unless the circuit is open; `failed` says which of its results and errors are the
   * provider failing (they count towards opening; anything else — a caller's cancel, a 400 — does not).
   */
  async run<T>(
    call: () => Promise<T>,
    failed: (outcome: { value: T } | { error: unknown }) => boolean,
  ): Promise<T> {
    const policy = this.#policy;
    if (!policy) return call();
    try {
      return await policy.execute(async () => {
        let value: T;
        try {
          value = await call();
        } catch (error) {
          throw failed({ error }) ? new CountedFailure({ error }) : new PassedThrough(error);
        }
        if (failed({ value })) throw new CountedFailure({ value });
        return value;
      });
    } catch (error) {
      if (error instanceof BrokenCircuitError) throw new ModelCircuitOpenError(this.endpoint);
      if (error instanceof PassedThrough) throw error.error;
      if (!(error instanceof CountedFailure)) throw error;
      // A failed answer (a 503 response) goes back to the SDK as the response it was.
      if ("error" in error.outcome) throw error.outcome.error;
      return error.outcome.value as T;
    }
  }

  get position(): CircuitPosition {
    const state = this.#policy?.state ?? CircuitState.Closed;
    if (state === CircuitState.HalfOpen) return "half-open";
    return state === CircuitState.Closed ? "closed" : "open";
  }

  /** How often it opened since start. */
  get opened(): number {
    return this.#opened;
  }
}

/** An error the circuit does not count, carried through it unchanged. */
class PassedThrough extends Error {
  readonly error: unknown;
  constructor(error: unknown) {
    super("not a provider failure");
    this.error = error;
  }
}
