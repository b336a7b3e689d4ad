import { describe, expect, it } from "vitest";
import { type CpuSlotSettings, type EventLoopSample, nextCpuSlotLimit } from "./event-loop-load.ts";

const SETTINGS: CpuSlotSettings = { initial: 16, min: 2, max: 256, targetDelayMs: 40 };

const window = (delayP99Ms: number, saturated: boolean) => ({
  sample: { delayP99Ms, delayMaxMs: delayP99Ms, utilization: 0.5 } satisfies EventLoopSample,
  saturated,
});

describe("nextCpuSlotLimit", () => {
  it("takes a quarter of the slots away when the loop's delay went past the target", () => {
    expect(nextCpuSlotLimit(16, window(41, true), SETTINGS)).toBe(12);
    expect(nextCpuSlotLimit(16, window(41, false), SETTINGS)).toBe(12);
  });

  it("adds one slot only when turns waited for one and the delay stayed under half the target", () => {
    expect(nextCpuSlotLimit(16, window(19, true), SETTINGS)).toBe(17);
    // Slots nobody wanted prove nothing about the loop.
    expect(nextCpuSlotLimit(16, window(0, false), SETTINGS)).toBe(16);
    // Between half the target and the target: keep what works.
    expect(nextCpuSlotLimit(16, window(30, true), SETTINGS)).toBe(16);
  });

  it("stays within min and max however long the loop is late or idle", () => {
    let limit = SETTINGS.initial;
    for (let step = 0; step < 50; step++) limit = nextCpuSlotLimit(limit, window(500, true), SETTINGS);
    expect(limit).toBe(SETTINGS.min);
    for (let step = 0; step < 500; step++) limit = nextCpuSlotLimit(limit, window(1, true), SETTINGS);
    expect(limit).toBe(SETTINGS.max);
  });
});
