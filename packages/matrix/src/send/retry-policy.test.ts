import { describe, expect, it } from "vitest";
import { MAX_SEND_ATTEMPTS, retryDelayMs } from "./retry-policy.ts";

describe("retryDelayMs", () => {
  it.each([
    [
      "429 with retry_after_ms",
      { status: 429, errcode: "M_LIMIT_EXCEEDED", retryAfterMs: 1234, message: "" },
      1,
      1234,
    ],
    [
      "M_LIMIT_EXCEEDED without a delay backs off",
      { status: 429, errcode: "M_LIMIT_EXCEEDED", message: "" },
      3,
      2000,
    ],
    ["502 without errcode", { status: 502, message: "" }, 1, 500],
    ["500 with Retry-After", { status: 500, retryAfterMs: 3000, message: "" }, 2, 3000],
    ["no answer at all (connection reset)", { message: "ECONNRESET" }, 2, 1000],
    ["backoff is capped", { status: 503, message: "" }, 5, 8000],
    ["403 is final", { status: 403, errcode: "M_FORBIDDEN", message: "" }, 1, null],
    ["413 too large is final", { status: 413, errcode: "M_TOO_LARGE", message: "" }, 1, null],
    ["the last attempt is final", { status: 429, retryAfterMs: 10, message: "" }, MAX_SEND_ATTEMPTS, null],
  ])("%s", (_name, failure, attempt, expected) => {
    expect(retryDelayMs(failure, attempt)).toBe(expected);
  });
});
