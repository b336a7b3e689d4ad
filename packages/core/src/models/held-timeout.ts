/**
 * A timeout that can stand still: `hold` stops it keeping what is left, `release` lets it run on
 * from there. A model call's timers are held while its answer, already here, waits for this
 * process's CPU — that wait is ours, not the provider's slowness.
 *
 * Holding and releasing only move the deadline; the one timer is left running and, when it comes
 * due early (the deadline moved) or while held, is armed again for what is left. A streamed answer
 * holds and releases its timers at every piece, and a timer cleared and set again each time — with
 * a different duration each time, which Node keeps in a list of its own — cost a burst of answers
 * a few per cent of its CPU.
 */
export class HeldTimeout {
  readonly #fire: () => void;
  readonly #now: () => number;
  #timer: NodeJS.Timeout | undefined;
  /** When it fires, counted without the time held so far. */
  #endsAt: number;
  /** When the current hold began; undefined while running. */
  #heldAt: number | undefined;
  #done = false;

  constructor(ms: number, fire: () => void, now: () => number = Date.now) {
    this.#fire = fire;
    this.#now = now;
    this.#endsAt = now() + ms;
    this.#arm(ms);
  }

  hold(): void {
    if (this.#done || this.#heldAt !== undefined) return;
    this.#heldAt = this.#now();
  }

  release(): void {
    if (this.#heldAt === undefined) return;
    this.#endsAt += this.#now() - this.#heldAt;
    this.#heldAt = undefined;
    // It came due while held: nothing is armed, so arm it for what is left.
    if (this.#timer === undefined && !this.#done) this.#arm(this.#endsAt - this.#now());
  }

  clear(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#heldAt = undefined;
    this.#done = true;
  }

  #arm(ms: number): void {
    this.#timer = setTimeout(() => this.#due(), Math.max(0, ms));
  }

  #due(): void {
    this.#timer = undefined;
    // Held: `release` arms it again with the time that was left.
    if (this.#done || this.#heldAt !== undefined) return;
    const left = this.#endsAt - this.#now();
    if (left > 0) {
      this.#arm(left);
      return;
    }
    this.#done = true;
    this.#fire();
  }
}
