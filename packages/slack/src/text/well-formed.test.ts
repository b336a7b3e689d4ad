import { describe, expect, it } from "vitest";
import { wellFormed } from "./well-formed.ts";

describe("wellFormed", () => {
  it.each([
    ["\uD800 high", "\uFFFD high"],
    ["low \uDC00", "low \uFFFD"],
    ["\uDC00\uD800", "\uFFFD\uFFFD"],
    ["a pair 😀 stays", "a pair 😀 stays"],
    ["plain", "plain"],
  ])("%j → %j", (input, expected) => {
    expect(wellFormed(input)).toBe(expected);
  });
});
