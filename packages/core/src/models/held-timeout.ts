/**
 * A timeout that can stand still: `hold` stops it keeping what is left, `release` lets it run on
 * from there. A model call's timers are held while its answer, already here, waits for this
 * process's CPU — that wait is ours, not the provider's slowness.
 */
export class HeldTimeout {
  readonly #fire: () => void;
  readonly #now: () => number;
  #timer: NodeJS.Timeout | undefined;
  #endsAt = 0;
  /** Milliseconds left while held; undefined while running or done. */
  #left: number | undefined;

  constructor(ms: number, fire: () => void, now: () => number = Date.now) {
    this.#fire = fire;
    this.#now = now;
    this.#arm(ms);
  }

  hold(): void {
    if (this.#timer === undefined) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#left = Math.max(0, this.#endsAt - this.#now());
  }

  release(): void {
    if (this.#left === undefined) return;
    const left = this.#left;
    this.#left = undefined;
    this.#arm(left);
  }

  clear(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#left = undefined;
  }

  #arm(ms: number): void {
    this.#endsAt = this.#now() + ms;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#fire();
    }, ms);
  }
}
