import { describe, expect, it } from "vitest";
import { slackFace } from "./agent-face.ts";

describe("slackFace", () => {
  it.each([
    ["no identity", undefined, true, { markdown: "Hi" }],
    ["a name", { name: "Billing" }, true, { authorship: { username: "Billing" }, markdown: "Hi" }],
    [
      "an emoji icon",
      { name: "Billing", icon: ":moneybag:" },
      true,
      { authorship: { username: "Billing", icon_emoji: ":moneybag:" }, markdown: "Hi" },
    ],
    [
      "an image icon",
      { name: "Billing", icon: "https://example.com/b.png" },
      true,
      { authorship: { username: "Billing", icon_url: "https://example.com/b.png" }, markdown: "Hi" },
    ],
    ["no customize scope", { name: "Billing", icon: ":moneybag:" }, false, { markdown: "**Billing:** Hi" }],
  ])("%s", (_case, identity, customize, expected) => {
    expect(slackFace("Hi", identity, customize)).toEqual(expected);
  });
});
