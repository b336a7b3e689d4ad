import { describe, expect, it } from "vitest";
import { classifyModelError, type RetryableFailure, retryAfterMsOf } from "./retry-policy.ts";

const NOW = Date.parse("2025-01-01T00:00:00Z");

function httpError(status: number, fields: Record<string, unknown> = {}): Error {
  return Object.assign(new Error(`HTTP ${status}`), { status, ...fields });
}

function withCode(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

function named(name: string, message = name): Error {
  const error = new Error(message);
  error.name = name;
  return error;
}

describe("classifyModelError", () => {
  const cases: Array<[string, unknown, RetryableFailure | undefined]> = [
    ["429", httpError(429), { kind: "rate_limited" }],
    [
      "429 + retry-after seconds",
      httpError(429, { headers: new Headers({ "retry-after": "3" }) }),
      { kind: "rate_limited", retryAfterMs: 3000 },
    ],
    ["429 out of quota", httpError(429, { code: "insufficient_quota" }), undefined],
    [
      "429 quota message",
      httpError(429, { message: "You exceeded your quota: credit balance is too low" }),
      undefined,
    ],
    ["500", httpError(500), { kind: "server_error" }],
    ["529 overloaded", httpError(529), { kind: "server_error" }],
    ["503 as statusCode", Object.assign(new Error("x"), { statusCode: 503 }), { kind: "server_error" }],
    ["ollama status_code 502", Object.assign(new Error("x"), { status_code: 502 }), { kind: "server_error" }],
    [
      "response.status 429",
      Object.assign(new Error("x"), { response: { status: 429 } }),
      { kind: "rate_limited" },
    ],
    ["400", httpError(400), undefined],
    ["401 bad key", httpError(401), undefined],
    ["403", httpError(403), undefined],
    ["404 no such model", httpError(404), undefined],
    ["RateLimitError without status", named("RateLimitError"), { kind: "rate_limited" }],
    ["TimeoutError", named("TimeoutError"), { kind: "timeout" }],
    ["abort not asked for = per-call timeout", named("AbortError"), { kind: "timeout" }],
    ["ETIMEDOUT", withCode("connect ETIMEDOUT", "ETIMEDOUT"), { kind: "timeout" }],
    ["ECONNRESET", withCode("socket hang up", "ECONNRESET"), { kind: "network" }],
    ["ENOTFOUND", withCode("getaddrinfo ENOTFOUND api", "ENOTFOUND"), { kind: "network" }],
    ["ECONNREFUSED (ollama down)", withCode("connect ECONNREFUSED", "ECONNREFUSED"), { kind: "network" }],
    [
      "fetch failed, cause ECONNRESET",
      new TypeError("fetch failed", { cause: withCode("reset", "ECONNRESET") }),
      { kind: "network" },
    ],
    ["fetch failed, no cause", new TypeError("fetch failed"), { kind: "network" }],
    [
      "SDK wrapping a network error",
      new Error("Connection error.", {
        cause: new TypeError("fetch failed", { cause: withCode("x", "ENOTFOUND") }),
      }),
      { kind: "network" },
    ],
    ["APIConnectionError", named("APIConnectionError", "Connection error."), { kind: "network" }],
    ["a plain bug", new TypeError("cannot read properties of undefined"), undefined],
    ["a string", "boom", undefined],
    ["undefined", undefined, undefined],
  ];
  it.each(cases)("%s", (_name, error, expected) => {
    expect(classifyModelError(error, { callerAborted: false, now: () => NOW })).toEqual(expected);
  });

  it("never retries when the caller cancelled", () => {
    expect(classifyModelError(named("AbortError"), { callerAborted: true, now: () => NOW })).toBeUndefined();
    expect(classifyModelError(httpError(429), { callerAborted: true, now: () => NOW })).toBeUndefined();
  });
});

describe("retryAfterMsOf", () => {
  const cases: Array<[string, unknown, number | undefined]> = [
    ["retry-after seconds (Headers)", { headers: new Headers({ "Retry-After": "20" }) }, 20_000],
    ["retry-after fractional seconds", { headers: { "retry-after": "1.5" } }, 1_500],
    ["retry-after-ms wins", { headers: { "retry-after-ms": "250", "retry-after": "9" } }, 250],
    ["retry-after HTTP date", { headers: { "retry-after": new Date(NOW + 4_000).toUTCString() } }, 4_000],
    ["date in the past", { headers: { "retry-after": new Date(NOW - 4_000).toUTCString() } }, 0],
    ["response.headers", { response: { headers: new Headers({ "retry-after": "2" }) } }, 2_000],
    ["retryAfterMs field", { retryAfterMs: 1_234 }, 1_234],
    ["retryAfter field (seconds)", { retryAfter: 3 }, 3_000],
    ["garbage header", { headers: { "retry-after": "soon" } }, undefined],
    ["nothing", {}, undefined],
  ];
  it.each(cases)("%s", (_name, error, expected) => {
    expect(retryAfterMsOf(error, () => NOW)).toBe(expected);
  });
});
