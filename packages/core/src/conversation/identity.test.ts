import { describe, expect, it } from "vitest";
import { isEmojiIcon, withNamePrefix } from "./identity.ts";

describe("withNamePrefix", () => {
  it.each([
    ["Your invoice is paid.", "**Billing:** Your invoice is paid."],
    ["# Refunds\nThree steps.", "**Billing:**\n\n# Refunds\nThree steps."],
    ["```\ncode\n```", "**Billing:**\n\n```\ncode\n```"],
    ["- one\n- two", "**Billing:**\n\n- one\n- two"],
    ["1. one", "**Billing:**\n\n1. one"],
    ["> quoted", "**Billing:**\n\n> quoted"],
    ["| a | b |\n|---|---|", "**Billing:**\n\n| a | b |\n|---|---|"],
    ["*emphasis* first", "**Billing:** *emphasis* first"],
    ["", "**Billing:**"],
  ])("%j → %j", (text, expected) => {
    expect(withNamePrefix(text, "Billing")).toBe(expected);
  });

  it("escapes markdown in the name, so the name cannot end the bold early", () => {
    expect(withNamePrefix("Hi", "R*2_D2")).toBe("**R\\*2\\_D2:** Hi");
  });
});

describe("isEmojiIcon", () => {
  it.each([
    [":moneybag:", true],
    [":+1:", true],
    ["https://example.com/a.png", false],
    ["mxc://example.org/abc", false],
    ["moneybag", false],
  ])("%s → %s", (icon, expected) => {
    expect(isEmojiIcon(icon)).toBe(expected);
  });
});
