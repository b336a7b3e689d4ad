import { silentLogger } from "@switchboard/core/adapter";
import { afterEach, describe, expect, it, vi } from "vitest";
import { TypingIndicator } from "./typing.ts";

describe("TypingIndicator", () => {
  afterEach(() => vi.useRealTimers());

  it("types at once, renews on the interval while active, and stops renewing when stopped", async () => {
    vi.useFakeTimers();
    const typing = new TypingIndicator(8000, silentLogger);
    let sent = 0;
    await typing.start("discord:1:2:3", async () => {
      sent++;
    });
    expect(sent).toBe(1);
    await vi.advanceTimersByTimeAsync(8000 * 3);
    expect(sent).toBe(4);
    typing.stop("discord:1:2:3");
    await vi.advanceTimersByTimeAsync(8000 * 3);
    expect(sent).toBe(4);
    expect(typing.active).toBe(0);
  });

  it("keeps one renewal per conversation when started twice", async () => {
    vi.useFakeTimers();
    const typing = new TypingIndicator(8000, silentLogger);
    let sent = 0;
    const send = async () => {
      sent++;
    };
    await typing.start("a", send);
    await typing.start("a", send);
    await vi.advanceTimersByTimeAsync(8000);
    expect(sent).toBe(3);
    typing.stopAll();
  });

  it("reports a failed first request to the caller", async () => {
    const typing = new TypingIndicator(8000, silentLogger);
    await expect(typing.start("a", () => Promise.reject(new Error("no access")))).rejects.toThrow(
      "no access",
    );
    expect(typing.active).toBe(0);
  });
});
