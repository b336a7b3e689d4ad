import { describe, expect, it } from "vitest";
import { clipMarkdown, firstSentences } from "./markdown-clip.ts";

describe("firstSentences", () => {
  it.each([
    ["One. Two. Three.", 2, "One. Two."],
    ["Is it? Yes! Fine.", 1, "Is it?"],
    [
      "See [the policy](https://example.com/refunds.html). Then ask.",
      1,
      "See [the policy](https://example.com/refunds.html).",
    ],
    ["Open https://example.com/a.b?x=1. Done.", 1, "Open https://example.com/a.b?x=1."],
    ["Call `order.refund(). now` first. Then wait.", 1, "Call `order.refund(). now` first."],
    ["no   end\n\nof sentence", 1, "no end of sentence"],
    ["Version 2.5 is out. Upgrade.", 1, "Version 2.5 is out."],
  ])("%j, %i → %j", (text, count, expected) => {
    expect(firstSentences(text, count)).toBe(expected);
  });
});

describe("clipMarkdown", () => {
  const link = "[the refund policy](https://example.com/refunds)";
  it.each([
    ["short", 10, "short"],
    ["abcdefghijkl", 6, "abcde…"],
    [`Read ${link} now`, 20, "Read…"],
    [`Read ${link} now`, 55, `Read ${link}…`],
    ["Run `npm install --save x` then go", 15, "Run…"],
    ["Go to https://example.com/very/long/path today", 20, "Go to…"],
  ])("%j at %i → %j", (text, max, expected) => {
    expect(clipMarkdown(text, max)).toBe(expected);
    expect(clipMarkdown(text, max).length).toBeLessThanOrEqual(max);
  });
});
