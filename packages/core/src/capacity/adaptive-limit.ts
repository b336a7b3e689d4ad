/**
 * How many calls one model endpoint gets at once, learnt from how it answers: AIMD with slow start,
 * the congestion control TCP Reno uses, applied to requests.
 *
 * - Every answered call while the limit is in use (at least half of it in flight) raises it: by one
 *   per call below the threshold (slow start, so the limit doubles per round trip and a provider
 *   that recovered is used fully again within a few round trips), by one per round trip above it.
 * - A congestion signal — 429, 503/529 "overloaded", a call that timed out — halves it, and the
 *   threshold with it. Only once per round: calls that were already on their way under the old
 *   limit report the same congestion, and counting each of them would drive the limit to the floor
 *   (`epoch` tells them apart).
 *
 * Why AIMD and not a gradient (latency-driven) limit such as Netflix's Gradient2: a model's latency
 * is set by how long its answer is — 1 s or 60 s from the same endpoint — so a rising latency says
 * little about queueing at the provider, while providers say plainly when they are saturated (429
 * with Retry-After, 503). AIMD acts on exactly those signals and is stable with many processes
 * sharing one provider.
 */

export interface AdaptiveLimitSettings {
  readonly initial: number;
  readonly min: number;
  readonly max: number;
}

export class AdaptiveLimit {
  readonly #settings: AdaptiveLimitSettings;
  #limit: number;
  #threshold: number;
  #epoch = 0;

  constructor(settings: AdaptiveLimitSettings) {
    this.#settings = settings;
    this.#limit = clamp(settings.initial, settings);
    this.#threshold = settings.max;
  }

  /** Calls allowed in flight now. */
  get value(): number {
    return Math.floor(this.#limit);
  }

  /** Where slow start ends (halved with the limit on congestion). */
  get threshold(): number {
    return Math.floor(this.#threshold);
  }

  /** Counts the reductions: a call remembers the epoch it started in. */
  get epoch(): number {
    return this.#epoch;
  }

  /** A call was answered; `inFlight` counts the calls out at that moment, this one included. */
  succeeded(inFlight: number): void {
    // A limit far above what is used proves nothing about the provider: it would only drift upwards.
    if (inFlight * 2 < this.#limit) return;
    const step = this.#limit < this.#threshold ? 1 : 1 / this.#limit;
    this.#limit = clamp(this.#limit + step, this.#settings);
  }

  /**
   * The provider showed it is saturated, for a call started in `startedInEpoch`. True when this
   * reduced the limit (the first such signal of its round).
   */
  congested(startedInEpoch: number): boolean {
    if (startedInEpoch !== this.#epoch) return false;
    this.#threshold = clamp(this.#limit / 2, this.#settings);
    this.#limit = this.#threshold;
    this.#epoch += 1;
    return true;
  }
}

function clamp(value: number, settings: AdaptiveLimitSettings): number {
  return Math.min(settings.max, Math.max(settings.min, value));
}
