/**
 * How many calls one model endpoint gets at once, learnt from how it answers: AIMD with slow start,
 * the congestion control of TCP Reno (RFC 5681), applied to requests.
 *
 * - Every answered call while the limit is in use (at least half of it in flight) raises it: by one
 *   per call below the threshold (slow start: the limit doubles per round trip), by one per round
 *   trip above it (congestion avoidance: probing gently where the last trouble was).
 * - A congestion signal — 429, 503/529 "overloaded", a call that timed out — halves what was in
 *   flight (RFC 5681's FlightSize rule: a limit far above what was used says nothing), and the
 *   threshold with it. Only once per round: the calls already on their way under the old limit
 *   report the same congestion, and counting each would drive the limit to the floor (`epoch`).
 * - After a quiet minute (no congestion for `quietMs`) the threshold is forgotten and the limit
 *   slow-starts again: providers count their limits per minute, so a storm's low threshold must
 *   not keep a recovered provider underused for long.
 *
 * Why AIMD and not a gradient (latency-driven) limit such as Netflix's Gradient2: a model's latency
 * is set by how long its answer is — 1 s or 60 s from the same endpoint — so rising latency says
 * little about queueing at the provider, while providers say plainly when they are saturated (429
 * with Retry-After, 503). AIMD acts on exactly those signals, and is stable with many processes
 * sharing one provider.
 */

export interface AdaptiveLimitSettings {
  readonly initial: number;
  readonly min: number;
  readonly max: number;
  /** Without congestion for this long, slow start resumes up to `max` (default one minute). */
  readonly quietMs?: number;
}

const DEFAULT_QUIET_MS = 60_000;

export class AdaptiveLimit {
  readonly #settings: AdaptiveLimitSettings;
  #limit: number;
  #threshold: number;
  #epoch = 0;
  #congestedAt = Number.NEGATIVE_INFINITY;

  constructor(settings: AdaptiveLimitSettings) {
    this.#settings = settings;
    this.#limit = clamp(settings.initial, settings);
    this.#threshold = settings.max;
  }

  /** Calls allowed in flight now. */
  get value(): number {
    return Math.floor(this.#limit);
  }

  /** Where slow start ends (set on congestion, forgotten after a quiet minute). */
  get threshold(): number {
    return Math.floor(this.#threshold);
  }

  /** Counts the reductions: a call remembers the epoch it started in. */
  get epoch(): number {
    return this.#epoch;
  }

  /** A call was answered; `inFlight` counts the calls out at that moment, this one included. */
  succeeded(inFlight: number, now: number): void {
    if (now - this.#congestedAt >= (this.#settings.quietMs ?? DEFAULT_QUIET_MS))
      this.#threshold = this.#settings.max;
    // A limit far above what is used proves nothing about the provider: it would only drift upwards.
    if (inFlight * 2 < this.#limit) return;
    const step = this.#limit < this.#threshold ? 1 : 1 / this.#limit;
    this.#limit = clamp(this.#limit + step, this.#settings);
  }

  /**
   * The provider showed it is saturated, for a call started in `startedInEpoch` while `inFlight`
   * calls (this one included) were out. True when this reduced the limit (the first signal of its round).
   */
  congested(startedInEpoch: number, inFlight: number, now: number): boolean {
    if (startedInEpoch !== this.#epoch) return false;
    this.#threshold = clamp(Math.min(this.#limit, inFlight) / 2, this.#settings);
    this.#limit = this.#threshold;
    this.#epoch += 1;
    this.#congestedAt = now;
    return true;
  }
}

function clamp(value: number, settings: AdaptiveLimitSettings): number {
  return Math.min(settings.max, Math.max(settings.min, value));
}
