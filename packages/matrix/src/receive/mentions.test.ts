import { describe, expect, it } from "vitest";
import { mentionsBot, withoutLeadingAddress, withoutReplyFallback } from "./mentions.ts";

const bot = { userId: "@switchboard:example.org", displayName: "Switchboard" };

describe("mentionsBot", () => {
  it.each([
    [
      "m.mentions names the bot",
      { body: "hi", "m.mentions": { user_ids: ["@switchboard:example.org"] } },
      true,
    ],
    [
      "m.mentions names someone else",
      { body: "hi", "m.mentions": { user_ids: ["@alice:example.org"] } },
      false,
    ],
    ["empty m.mentions, plain text", { body: "hi all", "m.mentions": {} }, false],
    [
      "matrix.to pill",
      { body: "x", formatted_body: '<a href="https://matrix.to/#/@switchboard:example.org">S</a> hi' },
      true,
    ],
    [
      "URL-encoded pill",
      { body: "x", formatted_body: '<a href="https://matrix.to/#/%40switchboard%3Aexample.org">S</a>' },
      true,
    ],
    [
      "matrix: URI pill",
      { body: "x", formatted_body: "<a href='matrix:u/switchboard:example.org?action=chat'>S</a>" },
      true,
    ],
    [
      "pill to another user",
      { body: "x", formatted_body: '<a href="https://matrix.to/#/@alice:example.org">A</a>' },
      false,
    ],
    ["MXID in the body", { body: "ask @switchboard:example.org please" }, true],
    ["display name as a word", { body: "switchboard, what time is it?" }, true],
    ["display name inside another word", { body: "my switchboards are broken" }, false],
    ["display name with a different case at the end", { body: "thanks SWITCHBOARD" }, true],
  ])("%s", (_name, content, expected) => {
    expect(mentionsBot(content, bot)).toBe(expected);
  });

  it("does not match on an empty display name", () => {
    expect(mentionsBot({ body: "anything" }, { userId: bot.userId, displayName: " " })).toBe(false);
  });
});

describe("withoutLeadingAddress", () => {
  it.each([
    ["Switchboard: !reset", "!reset"],
    ["switchboard, what is up", "what is up"],
    ["@switchboard:example.org: /help", "/help"],
    ["Switchboard", "Switchboard"],
    ["Switchboards are great", "Switchboards are great"],
    ["hello Switchboard", "hello Switchboard"],
  ])("%j → %j", (body, expected) => {
    expect(withoutLeadingAddress(body, bot)).toBe(expected);
  });
});

describe("withoutLeadingAddress with a display name unlike the user name", () => {
  const helpdesk = { userId: "@switchboard:example.org", displayName: "Helpdesk" };
  it.each([
    ["switchboard: what is up", "what is up"],
    ["@switchboard, what is up", "what is up"],
    ["Helpdesk: what is up", "what is up"],
    ["switchboarding is fun", "switchboarding is fun"],
  ])("%j → %j", (body, expected) => {
    expect(withoutLeadingAddress(body, helpdesk)).toBe(expected);
  });
});

describe("withoutReplyFallback", () => {
  it.each([
    ["> <@alice:hs> original\n> second line\n\nmy reply", "my reply"],
    ["> quote without blank\nreply", "reply"],
    ["no quote here", "no quote here"],
    ["text\n> later quote", "text\n> later quote"],
  ])("%j → %j", (body, expected) => {
    expect(withoutReplyFallback(body)).toBe(expected);
  });
});
