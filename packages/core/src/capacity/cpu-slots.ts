/**
 * Turns hold a CPU slot only while they use the CPU. A turn takes a slot to start, gives it back
 * for as long as it waits outside the process (`awayFromCpu`: for a model, while its request waits
 * for capacity and for each piece of the answer, so reading the answer is counted as computing; a
 * tool; a delivery to the platform with its retries; a download, a transcription, a document read
 * in its thread), and takes one again — ahead of turns that have not started — to go on. So a
 * thousand turns waiting on a model hold no slot, and the slots bound only the turns whose store
 * calls and graph steps share the event loop with intake.
 *
 * `awayFromCpu` is for waits the turn itself is in. Work started beside the turn's own (a typing
 * indicator shown on a timer, a preview edit) is not wrapped: it would hand back the slot of a turn
 * still computing.
 *
 * How many slots there are is decided by the event loop's delay (event-loop-load.ts), not fixed
 * here. The turn a piece of code works for is found through AsyncLocalStorage, so model and tool
 * code need not be handed the lease: code outside any turn (a background task, memory's work after
 * the turn ended) runs without one and gives nothing back.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { AtOncePerLoopTurn } from "../runtime/event-loop.ts";
import { type Permit, PermitQueue } from "./permit-queue.ts";

export interface CpuSlotsState {
  readonly limit: number;
  readonly inUse: number;
  /** Turns waiting for a slot: to start, or to go on after a model or tool call. */
  readonly waiting: number;
}

/**
 * Slots passed on at once in one turn of the event loop; each one after that waits for the loop to
 * turn. A released slot passes to the next turn through a promise, which alone would run turn after
 * turn without letting I/O in. A loop turn for every slot, though, cost a burst of 200 mentions
 * about a tenth of its CPU (1.47 s against 1.32 s, medians of six runs on two cores). As many as the
 * commit group's reads at once (READS_AT_ONCE_PER_TURN).
 */
export const SLOTS_AT_ONCE_PER_LOOP_TURN = 32;

export class CpuSlots {
  readonly #permits: PermitQueue;
  readonly #atOnce = new AtOncePerLoopTurn(SLOTS_AT_ONCE_PER_LOOP_TURN);
  /** Whether anyone had to wait since the last `takeSaturation()`: the limit was what held work back. */
  #saturated = false;

  constructor(limit: number) {
    this.#permits = new PermitQueue({ limit });
  }

  get limit(): number {
    return this.#permits.limit;
  }

  set limit(value: number) {
    this.#permits.limit = value;
  }

  state(): CpuSlotsState {
    return { limit: this.#permits.limit, inUse: this.#permits.inUse, waiting: this.#permits.waiting };
  }

  /** True when a turn waited for a slot since the last call (resets it). */
  takeSaturation(): boolean {
    const saturated = this.#saturated || this.#permits.waiting > 0;
    this.#saturated = false;
    return saturated;
  }

  /** A slot for a turn about to start; its lease gives it back while the turn waits elsewhere. */
  async lease(key: string, signal?: AbortSignal): Promise<TurnLease> {
    const permit = await this.#acquire("next", signal);
    return new TurnLease(key, permit, (lane) => this.#acquire(lane));
  }

  async #acquire(lane: "first" | "next", signal?: AbortSignal): Promise<Permit> {
    const permit = await this.#permits.acquire({
      lane,
      signal,
      onQueued: () => {
        this.#saturated = true;
      },
    });
    if (!this.#atOnce.take()) await new Promise((resolve) => setImmediate(resolve));
    return permit;
  }
}

/** A turn's hold on the CPU slots: one slot while it computes, none while it waits outside. */
export class TurnLease {
  readonly key: string;
  readonly #reacquire: (lane: "first") => Promise<Permit>;
  #permit: Permit | undefined;
  /** Waits outside in progress (parallel tool calls): the slot comes back when the last one ends. */
  #away = 0;
  #returning: Promise<void> | undefined;
  #ended = false;

  constructor(key: string, permit: Permit, reacquire: (lane: "first") => Promise<Permit>) {
    this.key = key;
    this.#permit = permit;
    this.#reacquire = reacquire;
  }

  /** Runs the turn's work as this lease's: `awayFromCpu` inside it gives the slot back meanwhile. */
  run<T>(work: () => Promise<T>): Promise<T> {
    return storage.run(this, work);
  }

  /** Gives the slot back for good (the turn ended); a wait outside still in progress keeps none. */
  end(): void {
    this.#ended = true;
    this.#permit?.release();
    this.#permit = undefined;
  }

  async away<T>(work: () => Promise<T>): Promise<T> {
    if (this.#ended) return work();
    await this.#returning;
    this.#away += 1;
    if (this.#away === 1) {
      this.#permit?.release();
      this.#permit = undefined;
    }
    try {
      return await work();
    } finally {
      this.#away -= 1;
      if (this.#away === 0 && !this.#ended) await this.#comeBack();
    }
  }

  #comeBack(): Promise<void> {
    // One reacquisition at a time, shared by whoever needs the slot back first.
    this.#returning ??= this.#reacquire("first").then((permit) => {
      this.#returning = undefined;
      if (this.#ended || this.#away > 0) permit.release();
      else this.#permit = permit;
    });
    return this.#returning;
  }
}

const storage = new AsyncLocalStorage<TurnLease>();

/**
 * Runs `work` — waiting on a model or a tool — without holding the current turn's CPU slot, and
 * takes a slot again before returning. Outside a turn it just runs `work`.
 */
export function awayFromCpu<T>(work: () => Promise<T>): Promise<T> {
  const lease = storage.getStore();
  return lease ? lease.away(work) : work();
}

/** The conversation whose turn the caller works for, if it works for one. */
export function currentTurnKey(): string | undefined {
  return storage.getStore()?.key;
}
