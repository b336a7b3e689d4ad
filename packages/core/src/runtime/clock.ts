/** Time as the runtime sees it; tests pass a fake one to move through TTLs and timeouts. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
