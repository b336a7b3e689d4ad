/**
 * The timers of the model call attempt in progress (its whole-attempt and first-token timeouts),
 * reachable from the fetch that sends its request. Time spent waiting in line for a model endpoint's
 * capacity is not the provider's slowness: the endpoint stops the attempt's clocks while the request
 * waits and starts them afresh when it is sent. Without this, a call queued behind a rate limit
 * would "time out" in the queue, be retried and rejoin the line at its end.
 */
import { AsyncLocalStorage } from "node:async_hooks";

export interface AttemptClock {
  /** The request is waiting for capacity: the attempt's timers stop. */
  pause(): void;
  /** The request is on its way: the attempt's timers start again, from zero. */
  resume(): void;
  /**
   * The provider has answered (headers, a piece of the answer) and the turn waits for a CPU slot
   * to handle it: the timers stand still, keeping the time already spent.
   */
  hold(): void;
  /** The turn has its CPU slot again: the timers go on from where they stood. */
  release(): void;
}

const storage = new AsyncLocalStorage<AttemptClock>();

export function runWithAttemptClock<T>(clock: AttemptClock, work: () => T): T {
  return storage.run(clock, work);
}

/** The clock of the attempt the caller belongs to, if any. */
export function currentAttemptClock(): AttemptClock | undefined {
  return storage.getStore();
}
