import { describe, expect, it } from "vitest";
import { isRetryableSend } from "./retry-policy.ts";

describe("isRetryableSend", () => {
  it.each([
    [
      "429 with retry_after_ms",
      { status: 429, errcode: "M_LIMIT_EXCEEDED", retryAfterMs: 1234, message: "" },
      true,
    ],
    ["M_LIMIT_EXCEEDED without a status", { errcode: "M_LIMIT_EXCEEDED", message: "" }, true],
    ["502 without errcode", { status: 502, message: "" }, true],
    ["500 with Retry-After", { status: 500, retryAfterMs: 3000, message: "" }, true],
    ["no answer at all (connection reset)", { message: "ECONNRESET" }, true],
    ["403 is final", { status: 403, errcode: "M_FORBIDDEN", message: "" }, false],
    ["413 too large is final", { status: 413, errcode: "M_TOO_LARGE", message: "" }, false],
  ])("%s", (_name, failure, expected) => {
    expect(isRetryableSend(failure)).toBe(expected);
  });
});
