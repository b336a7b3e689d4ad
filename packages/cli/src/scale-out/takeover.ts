/**
 * How long a dead worker's jobs wait before a live worker takes them, and the BullMQ options that
 * keep that wait within `scaleOut.jobLockSeconds` (J).
 *
 * BullMQ finds a dead worker's job in two steps: the job's lock must lapse (`lockDuration` D after
 * its last renewal; renewals come at least every `lockRenewTime` = D/2), and a stalled-job check
 * (every `stalledInterval` S, once per cluster: a check sets a key for S that makes the others skip)
 * must have marked the job before the lapse and find it unlocked after it. With D = 2S every lock
 * period holds a check, so the job moves at the first check after the lapse: within D + S of the
 * kill. BullMQ's defaults (D = S = 30 s, what we set before) allow up to 2 × 30 s; observed: 47–49 s.
 * We set D = J/2 and S = J/4: taken within 3J/4, the last quarter left for Redis round trips and a
 * busy event loop in the surviving worker.
 *
 * The conversation's own lock (engine.lockTtlSeconds, L, renewed every L/3) must lapse too before
 * the drain can run: a worker that finds it held looks again within `lockedElsewhereDelayMs`, so a
 * dead worker's conversation runs again within max(J, L) + 1.5 s of the kill.
 */

/** The BullMQ worker options for jobs that move to another worker when theirs dies. */
export interface JobLockOptions {
  readonly lockDuration: number;
  readonly lockRenewTime: number;
  readonly stalledInterval: number;
}

export function jobLockOptions(jobLockMs: number): JobLockOptions {
  const lockDuration = Math.max(2, Math.floor(jobLockMs / 2));
  return {
    lockDuration,
    lockRenewTime: Math.max(1, Math.floor(lockDuration / 2)),
    stalledInterval: Math.max(1, Math.floor(lockDuration / 2)),
  };
}

/** The longest a dead worker's job waits before BullMQ gives it to another worker. */
export function jobTakeoverBoundMs(jobLockMs: number): number {
  return jobLockMs;
}

/** The longest a drain that found the conversation locked waits before it looks again. */
export const LOCKED_ELSEWHERE_MAX_DELAY_MS = 1_500;

/**
 * A drain that finds the conversation locked by another process looks again soon (a dead holder's
 * lock lapses at an unknown moment within one TTL), not in a loop: every tenth of a TTL, at most a
 * second, with up to half of that again as jitter so the waiters of many conversations spread out.
 */
export function lockedElsewhereDelayMs(lockTtlMs: number, random: () => number = Math.random): number {
  const base = Math.min(1_000, Math.max(10, lockTtlMs / 10));
  return Math.ceil(base + random() * (base / 2));
}

/** The longest a SIGKILLed worker's conversation waits before another worker runs it again. */
export function conversationTakeoverBoundMs(jobLockMs: number, lockTtlMs: number): number {
  return Math.max(jobTakeoverBoundMs(jobLockMs), lockTtlMs) + LOCKED_ELSEWHERE_MAX_DELAY_MS;
}
