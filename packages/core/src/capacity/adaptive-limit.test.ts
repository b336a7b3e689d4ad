import { describe, expect, it } from "vitest";
import { AdaptiveLimit } from "./adaptive-limit.ts";

const settings = { initial: 8, min: 1, max: 64, quietMs: 60_000 };

/** `calls` answered one after another while the limit is fully in use. */
function answerRound(limit: AdaptiveLimit, calls: number, now: number): void {
  for (let i = 0; i < calls; i++) limit.succeeded(limit.value, now);
}

describe("AdaptiveLimit (AIMD with slow start)", () => {
  it("grows while calls succeed with the limit in use: doubling per round trip in slow start", () => {
    const limit = new AdaptiveLimit(settings);
    answerRound(limit, 8, 0);
    expect(limit.value).toBe(16);
    answerRound(limit, 16, 1_000);
    expect(limit.value).toBe(32);
  });

  it("does not grow while most of the limit goes unused", () => {
    const limit = new AdaptiveLimit(settings);
    for (let i = 0; i < 100; i++) limit.succeeded(3, i);
    expect(limit.value).toBe(8);
  });

  it("never grows past max nor drops below min", () => {
    const limit = new AdaptiveLimit(settings);
    answerRound(limit, 500, 0);
    expect(limit.value).toBe(64);
    for (let round = 0; round < 20; round++) limit.congested(limit.epoch, 1, round);
    expect(limit.value).toBe(1);
  });

  it("backs off on a 429: half of what was in flight, once per round however many calls report it", () => {
    const limit = new AdaptiveLimit({ ...settings, initial: 40 });
    const startedIn = limit.epoch;
    expect(limit.congested(startedIn, 30, 1_000)).toBe(true);
    expect(limit.value).toBe(15);
    // The other calls of the same round, sent under the old limit, report the same congestion.
    for (let i = 0; i < 29; i++) expect(limit.congested(startedIn, 29 - i, 1_001)).toBe(false);
    expect(limit.value).toBe(15);
    // A call sent after the cut that is refused too: the provider is still saturated.
    expect(limit.congested(limit.epoch, 15, 3_000)).toBe(true);
    expect(limit.value).toBe(7);
  });

  it("recovers: above the threshold one call per round trip, then slow start again after a quiet minute", () => {
    const limit = new AdaptiveLimit({ ...settings, initial: 40 });
    limit.congested(limit.epoch, 40, 0);
    expect(limit.value).toBe(20);
    expect(limit.threshold).toBe(20);
    // Congestion avoidance: a round trip's answers (about the limit's worth) add one.
    answerRound(limit, 21, 10_000);
    expect(limit.value).toBe(21);
    // A minute without congestion: the threshold is forgotten, the limit doubles per round trip.
    answerRound(limit, 21, 61_000);
    expect(limit.threshold).toBe(64);
    expect(limit.value).toBe(42);
    answerRound(limit, 42, 62_000);
    expect(limit.value).toBe(64);
  });
});
