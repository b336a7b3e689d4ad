import { describe, expect, it } from "vitest";
import { reconnectDelayMs } from "./mcp-server-link.ts";

describe("reconnectDelayMs", () => {
  const reconnect = { initialDelaySeconds: 1, maxDelaySeconds: 60 };
  it.each([
    [0, 1_000],
    [1, 1_000],
    [2, 2_000],
    [3, 4_000],
    [6, 32_000],
    [7, 60_000],
    [50, 60_000],
  ])("after %i failed attempts: %i ms", (failed, expected) => {
    expect(reconnectDelayMs(reconnect, failed)).toBe(expected);
  });
});
