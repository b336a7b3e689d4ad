/**
 * The BullMQ options behind "a dead worker's jobs move on within `scaleOut.jobLockSeconds`": every
 * lock period holds a stalled-job check (lock ≥ 2 × check interval), and lock + check interval —
 * BullMQ's worst case for finding a dead worker's job — stays within the documented bound.
 */
import { describe, expect, it } from "vitest";
import {
  conversationTakeoverBoundMs,
  jobLockOptions,
  jobTakeoverBoundMs,
  LOCKED_ELSEWHERE_MAX_DELAY_MS,
  lockedElsewhereDelayMs,
} from "./takeover.ts";

describe("jobLockOptions", () => {
  it.each([1_000, 2_000, 3_000, 10_000, 30_000, 600_000])(
    "keeps a job lock of %i ms within its bound",
    (jobLockMs) => {
      const options = jobLockOptions(jobLockMs);
      expect(options.lockDuration + options.stalledInterval).toBeLessThanOrEqual(
        jobTakeoverBoundMs(jobLockMs),
      );
      expect(options.lockDuration).toBeGreaterThanOrEqual(2 * options.stalledInterval);
      expect(options.lockRenewTime).toBeLessThanOrEqual(options.lockDuration / 2);
    },
  );

  it("gives the defaults a 30 s bound, where BullMQ's own defaults allowed 60 s", () => {
    expect(jobLockOptions(30_000)).toEqual({
      lockDuration: 15_000,
      lockRenewTime: 7_500,
      stalledInterval: 7_500,
    });
    expect(conversationTakeoverBoundMs(30_000, 30_000)).toBe(31_500);
  });
});

describe("lockedElsewhereDelayMs", () => {
  it.each([
    [300, 0, 30],
    [300, 1, 45],
    [30_000, 0, 1_000],
    [30_000, 1, 1_500],
    [600_000, 1, 1_500],
  ])("with a lock TTL of %i ms and jitter %f waits %i ms", (lockTtlMs, jitter, expected) => {
    expect(lockedElsewhereDelayMs(lockTtlMs, () => jitter)).toBe(expected);
    expect(expected).toBeLessThanOrEqual(LOCKED_ELSEWHERE_MAX_DELAY_MS);
  });
});
