import { afterEach, describe, expect, it, vi } from "vitest";
import { TypingIndicator } from "./typing.ts";

describe("TypingIndicator", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  function recorder() {
    const calls: string[] = [];
    const indicator = new TypingIndicator(
      async (roomId, typing) => {
        calls.push(`${roomId}:${typing}`);
      },
      () => {},
    );
    return { calls, indicator };
  }

  it("shows while turns run in a room and stops after the last one", async () => {
    const { calls, indicator } = recorder();
    await indicator.start("!a");
    await indicator.start("!a");
    await indicator.stop("!a");
    expect(calls).toEqual(["!a:true"]);
    await indicator.stop("!a");
    expect(calls).toEqual(["!a:true", "!a:false"]);
  });

  it("renews the indicator during a long turn", async () => {
    vi.useFakeTimers();
    const { calls, indicator } = recorder();
    await indicator.start("!a");
    await vi.advanceTimersByTimeAsync(45_000);
    expect(calls).toEqual(["!a:true", "!a:true", "!a:true"]);
    await indicator.stop("!a");
    await vi.advanceTimersByTimeAsync(45_000);
    expect(calls.at(-1)).toBe("!a:false");
    expect(calls).toHaveLength(4);
  });

  it("clears every room on shutdown", async () => {
    const { calls, indicator } = recorder();
    await indicator.start("!a");
    await indicator.start("!a");
    await indicator.start("!b");
    await indicator.stopAll();
    expect(calls.filter((call) => call.endsWith("false")).sort()).toEqual(["!a:false", "!b:false"]);
  });
});
