/**
 * Who goes first on the event loop: intake (a platform waiting for its acknowledgement) before turns.
 *
 * node:sqlite runs every statement synchronously, so a turn that awaits only SQLite calls would keep
 * the event loop until it awaits real I/O, and requests arriving meanwhile would wait behind whole
 * turns. Each SQLite write therefore waits for its commit group's flush (store/sqlite/
 * sqlite-commit-group.ts — the store's and the checkpointer's): one turn of the loop, in which
 * pending I/O is handled first. Intake runs under `runAsIntake`, where the wait is skipped: its few
 * store calls finish at once, and the work it starts (`runAsBackground`) waits again.
 */
import { AsyncLocalStorage } from "node:async_hooks";

const intake = new AsyncLocalStorage<boolean>();

/** Runs `work` (accepting one inbound message) without yielding in its store calls. */
export function runAsIntake<Result>(work: () => Promise<Result>): Promise<Result> {
  return intake.run(true, work);
}

/** Runs `work` as ordinary work again, also when it was started from intake. */
export function runAsBackground<Result>(work: () => Promise<Result>): Promise<Result> {
  return intake.run(false, work);
}

/** True inside `runAsIntake` (and not inside a `runAsBackground` started from it). */
export function runningAsIntake(): boolean {
  return intake.getStore() === true;
}

/**
 * How many of something may happen at once in one turn of the event loop before the next has to
 * wait for the loop to turn: cheap steps (a read, a CPU slot passed on) run at once, and a long run
 * of them still lets pending I/O — acknowledgements — in every `budget` steps.
 */
export class AtOncePerLoopTurn {
  readonly budget: number;
  #used = 0;

  constructor(budget: number) {
    this.budget = budget;
  }

  /** True, and counted, while fewer than `budget` were taken in this turn of the loop. */
  take(): boolean {
    if (this.#used >= this.budget) return false;
    if (this.#used++ === 0)
      setImmediate(() => {
        this.#used = 0;
      });
    return true;
  }
}
