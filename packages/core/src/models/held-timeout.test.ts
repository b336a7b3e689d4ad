import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { HeldTimeout } from "./held-timeout.ts";

describe("HeldTimeout", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("fires once its time has run", () => {
    const fire = vi.fn();
    new HeldTimeout(1_000, fire);
    vi.advanceTimersByTime(999);
    expect(fire).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fire).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(10_000);
    expect(fire).toHaveBeenCalledTimes(1);
  });

  it("stands still while held and goes on from there when released", () => {
    const fire = vi.fn();
    const timeout = new HeldTimeout(1_000, fire);
    vi.advanceTimersByTime(400);
    timeout.hold();
    vi.advanceTimersByTime(5_000);
    expect(fire).not.toHaveBeenCalled();
    timeout.release();
    vi.advanceTimersByTime(599);
    expect(fire).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fire).toHaveBeenCalledTimes(1);
  });

  it("counts every hold: many short ones add up", () => {
    const fire = vi.fn();
    const timeout = new HeldTimeout(1_000, fire);
    for (let piece = 0; piece < 10; piece++) {
      vi.advanceTimersByTime(50);
      timeout.hold();
      vi.advanceTimersByTime(200);
      timeout.release();
    }
    // 500 ms ran and 2,000 ms were held: 500 ms are left.
    vi.advanceTimersByTime(499);
    expect(fire).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fire).toHaveBeenCalledTimes(1);
  });

  it("fires on release when nothing was left at the hold", () => {
    const fire = vi.fn();
    const timeout = new HeldTimeout(100, fire);
    vi.advanceTimersByTime(99);
    timeout.hold();
    vi.advanceTimersByTime(1_000);
    timeout.release();
    expect(fire).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fire).toHaveBeenCalledTimes(1);
  });

  it("never fires once cleared, held or not", () => {
    const fire = vi.fn();
    const running = new HeldTimeout(100, fire);
    running.clear();
    const held = new HeldTimeout(100, fire);
    held.hold();
    held.clear();
    held.release();
    vi.advanceTimersByTime(10_000);
    expect(fire).not.toHaveBeenCalled();
    expect(vi.getTimerCount()).toBe(0);
  });

  it("holding and releasing at every piece of an answer sets no new timer", () => {
    const setTimeoutSpy = vi.spyOn(globalThis, "setTimeout");
    const timeout = new HeldTimeout(30_000, vi.fn());
    for (let piece = 0; piece < 100; piece++) {
      timeout.hold();
      vi.advanceTimersByTime(1);
      timeout.release();
    }
    expect(setTimeoutSpy).toHaveBeenCalledTimes(1);
    expect(vi.getTimerCount()).toBe(1);
    timeout.clear();
    setTimeoutSpy.mockRestore();
  });
});
