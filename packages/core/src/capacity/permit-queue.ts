/**
 * Permits handed out first come, first served, up to a limit that may change at any time: the one
 * primitive behind the CPU slots of turns and the model endpoints' concurrency.
 *
 * Written here rather than taken from p-limit or p-queue: a permit must outlive the function that
 * took it (a model's answer streams in after `fetch` returned), a waiter whose caller gave up must
 * leave the line at once, and the head of the line may be held back by a rule of time — a provider's
 * Retry-After, a requests-per-minute window — that neither library can express.
 *
 * Invariants: waiters are served in arrival order within a lane, the `first` lane before the `next`
 * lane; nobody is admitted while `inUse >= limit`; a released or abandoned permit is counted once.
 */

export interface Permit {
  /** Gives the permit back; a second call does nothing. */
  release(): void;
}

export type Lane = "first" | "next";

export interface AcquireOptions<Cost> {
  /** Aborting leaves the line (the promise rejects with the signal's reason). */
  readonly signal?: AbortSignal | undefined;
  /** `first`: served before every `next` waiter (a turn resuming before a new turn starts). */
  readonly lane?: Lane;
  /** What the head-of-line rule weighs (a call's estimated tokens). */
  readonly cost?: Cost;
  /** Called once when the caller has to wait (no permit at once). */
  readonly onQueued?: () => void;
}

interface Waiter<Cost> {
  readonly cost: Cost | undefined;
  readonly resolve: (permit: Permit) => void;
  readonly reject: (reason: unknown) => void;
  readonly signal: AbortSignal | undefined;
  readonly onAbort: () => void;
}

export interface PermitQueueOptions<Cost> {
  readonly limit: number;
  /**
   * How long the head of the line must still wait although a permit is free (0: admit it now).
   * The queue looks again after that long, or when `wake()` is called.
   */
  readonly holdHead?: (cost: Cost | undefined) => number;
  /** Told when a permit is handed out, with the waiter's cost (rate windows count it). */
  readonly onAdmit?: (cost: Cost | undefined) => void;
}

export class PermitQueue<Cost = undefined> {
  readonly #options: PermitQueueOptions<Cost>;
  readonly #lanes: Record<Lane, Waiter<Cost>[]> = { first: [], next: [] };
  #limit: number;
  #inUse = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: PermitQueueOptions<Cost>) {
    this.#options = options;
    this.#limit = Math.max(1, Math.floor(options.limit));
  }

  get limit(): number {
    return this.#limit;
  }

  /** A higher limit admits waiters at once; a lower one takes effect as permits come back. */
  set limit(value: number) {
    this.#limit = Math.max(1, Math.floor(value));
    this.#pump();
  }

  get inUse(): number {
    return this.#inUse;
  }

  get waiting(): number {
    return this.#lanes.first.length + this.#lanes.next.length;
  }

  /** A permit now when one is free and nobody is ahead; otherwise in line. */
  acquire(options: AcquireOptions<Cost> = {}): Promise<Permit> {
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.waiting === 0 && this.#inUse < this.#limit && this.#holdFor(options.cost) === 0) {
      return Promise.resolve(this.#admit(options.cost));
    }
    options.onQueued?.();
    return new Promise<Permit>((resolve, reject) => {
      const lane = this.#lanes[options.lane ?? "next"];
      const waiter: Waiter<Cost> = {
        cost: options.cost,
        resolve,
        reject,
        signal,
        onAbort: () => {
          const index = lane.indexOf(waiter);
          if (index !== -1) lane.splice(index, 1);
          reject(signal?.reason);
          // The head may have been the one waiting on a rule: the next one may go now.
          this.#pump();
        },
      };
      signal?.addEventListener("abort", waiter.onAbort, { once: true });
      lane.push(waiter);
      this.#pump();
    });
  }

  /** Looks at the head of the line again (a rule of time changed: a pause was set or ended). */
  wake(): void {
    this.#pump();
  }

  #holdFor(cost: Cost | undefined): number {
    return Math.max(0, this.#options.holdHead?.(cost) ?? 0);
  }

  #admit(cost: Cost | undefined): Permit {
    this.#inUse += 1;
    this.#options.onAdmit?.(cost);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.#inUse -= 1;
        this.#pump();
      },
    };
  }

  #pump(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    while (this.#inUse < this.#limit) {
      const lane = this.#lanes.first.length > 0 ? this.#lanes.first : this.#lanes.next;
      const head = lane[0];
      if (!head) return;
      const holdMs = this.#holdFor(head.cost);
      if (holdMs > 0) {
        this.#timer = setTimeout(() => this.#pump(), holdMs);
        // Waiters keep the process alive through their callers; this timer alone must not.
        this.#timer.unref?.();
        return;
      }
      lane.shift();
      head.signal?.removeEventListener("abort", head.onAbort);
      head.resolve(this.#admit(head.cost));
    }
  }
}
