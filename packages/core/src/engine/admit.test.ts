import { describe, expect, it } from "vitest";
import type { InboundMessage } from "../conversation/messages.ts";
import { isAddressedToBot, screenMessage } from "./admit.ts";

const base: InboundMessage = {
  id: "m1",
  conversation: { platform: "console", path: ["main"] },
  author: { id: "u1", isBot: false, isSelf: false },
  text: "hello",
  isDirect: false,
  mentionsBot: false,
  isEdit: false,
  sentAt: 0,
};

describe("screenMessage", () => {
  it.each([
    [{}, null],
    [{ author: { id: "b", isBot: true, isSelf: true } }, "own-message"],
    [{ author: { id: "b", isBot: true, isSelf: false } }, "bot-message"],
    [{ isEdit: true }, "edit"],
    [{ text: "  \n" }, "empty"],
  ])("%j → %s", (change, expected) => {
    expect(screenMessage({ ...base, ...change })).toBe(expected);
  });
});

describe("isAddressedToBot", () => {
  const none = { repliesToBot: false, botTakesPart: false };
  it.each([
    ["a DM", { isDirect: true }, none, true],
    ["a mention in a channel", { mentionsBot: true }, none, true],
    ["a reply to the bot", {}, { repliesToBot: true, botTakesPart: false }, true],
    ["a conversation the bot is in", {}, { repliesToBot: false, botTakesPart: true }, true],
    ["plain channel chatter", {}, none, false],
  ])("%s → %s", (_label, change, facts, expected) => {
    expect(isAddressedToBot({ ...base, ...change }, facts)).toBe(expected);
  });
});
