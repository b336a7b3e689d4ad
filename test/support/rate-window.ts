/**
 * A platform's rate limit as a sliding window: at most `limit` calls per `windowMs` per scope
 * (a channel, a room). Every call over the limit is counted — a test asserts there were none; with
 * `enforce` on, the stand-in also refuses it the way the platform does. (Off by default: tests
 * that are not about rate limits post faster than a person could read, and need not wait.)
 */
export class RateWindow {
  readonly #limit: number;
  readonly #windowMs: number;
  readonly #calls = new Map<string, number[]>();
  /** Calls refused for going over the limit, per scope. */
  readonly breaches: { scope: string; at: number }[] = [];
  enforce = false;

  constructor(limit: number, windowMs: number) {
    this.#limit = limit;
    this.#windowMs = windowMs;
  }

  /** Records a call; when enforcing and over the limit, returns the ms to wait (the call is refused). */
  take(scope: string, now = Date.now()): number | undefined {
    const recent = (this.#calls.get(scope) ?? []).filter((at) => at > now - this.#windowMs);
    if (recent.length >= this.#limit) {
      this.breaches.push({ scope, at: now });
      if (this.enforce) {
        this.#calls.set(scope, recent);
        return (recent[0] ?? now) + this.#windowMs - now;
      }
    }
    recent.push(now);
    this.#calls.set(scope, recent);
    return undefined;
  }

  /** Every call accepted in a scope, oldest first. */
  callsIn(scope: string): readonly number[] {
    return this.#calls.get(scope) ?? [];
  }
}
