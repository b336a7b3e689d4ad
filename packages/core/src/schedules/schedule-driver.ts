import { AsyncResource } from "node:async_hooks";
import type { Clock } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";

const MIN_WAKE_MS = 50;

/**
 * What a driver fires from: a durable due index (schedules, later retries) and the firing side
 * that queues what is due exactly once.
 */
export interface DueIndex {
  /** When the earliest entry is due (undefined: none is). */
  nextDueAt(): Promise<number | undefined>;
}
export interface DueFirer {
  fireDue(): Promise<unknown>;
}

export interface ScheduleDriverOptions {
  readonly store: DueIndex;
  readonly firer: DueFirer;
  /** How often the due index is read. */
  readonly pollMs: number;
  readonly clock: Clock;
  readonly logger: Logger;
}

/**
 * Fires schedules in this process (role `all`). The store's due index is the only truth: every
 * `pollMs` it is read and what is due fires; between two reads, a timer wakes the driver at the
 * earliest due time it saw, so a fire is not up to a poll late. The timer is derived from the
 * store each time — nothing a restart could forget — and a process that was down fires what it
 * missed at its first read (within the catch-up window).
 */
export class ScheduleDriver {
  readonly #options: ScheduleDriverOptions;
  /** Rounds run in the context the driver was built in, never in the turn that created a schedule. */
  readonly #scope: AsyncResource;
  #poll: NodeJS.Timeout | undefined;
  #wake: NodeJS.Timeout | undefined;
  #wakeAt: number | undefined;
  #round: Promise<void> | undefined;
  #again = false;
  #stopped = false;

  constructor(options: ScheduleDriverOptions, name = "switchboard.schedules") {
    this.#options = options;
    this.#scope = new AsyncResource(name);
  }

  start(): void {
    if (this.#poll) return;
    this.#stopped = false;
    this.#poll = setInterval(() => this.kick(), this.#options.pollMs);
    this.#poll.unref?.();
    this.kick();
  }

  /** Reads the due index now (coalesced: one round at a time, one more if asked meanwhile). */
  kick(): void {
    this.#scope.runInAsyncScope(() => this.#kick());
  }

  /** Resolves when the current round (and one asked for meanwhile) is over (tests). */
  async settled(): Promise<void> {
    while (this.#round) await this.#round;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#poll);
    clearTimeout(this.#wake);
    this.#poll = undefined;
    this.#wake = undefined;
    await this.settled();
  }

  #kick(): void {
    if (this.#stopped) return;
    if (this.#round) {
      this.#again = true;
      return;
    }
    this.#round = this.#fire()
      .catch((error: unknown) =>
        this.#options.logger.warn("could not read the due index; the next poll tries again", { error }),
      )
      .finally(() => {
        this.#round = undefined;
        if (this.#again) {
          this.#again = false;
          this.#kick();
        }
      });
  }

  async #fire(): Promise<void> {
    const { firer, store, clock, pollMs } = this.#options;
    await firer.fireDue();
    const next = await store.nextDueAt();
    if (next === undefined || this.#stopped) return;
    const wait = next - clock.now();
    // Beyond the next poll, the poll finds it; a wake already set for the same time stays.
    if (wait > pollMs || this.#wakeAt === next) return;
    // Due already (it became due during the round, or its fire failed): soon, never in a hot loop.
    const delay = wait > 0 ? wait : MIN_WAKE_MS;
    clearTimeout(this.#wake);
    this.#wakeAt = next;
    this.#wake = setTimeout(() => {
      this.#wakeAt = undefined;
      this.kick();
    }, delay);
    this.#wake.unref?.();
  }
}
