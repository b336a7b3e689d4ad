import { encodeConversationKey } from "@switchboard/core/adapter";
import { describe, expect, it } from "vitest";
import { type BotIdentity, type MessageFacts, toInboundMessage } from "./inbound-message.ts";

const bot: BotIdentity = { userId: "100", roleIds: ["700"] };
const base: MessageFacts = {
  id: "900",
  content: "hello",
  kind: "user",
  author: { id: "200", displayName: "Ada", isBot: false },
  location: { kind: "channel", guildId: "1", channelId: "2" },
  sentAt: 1_700_000_000_000,
  isEdit: false,
};

describe("toInboundMessage", () => {
  it.each<[string, Partial<MessageFacts>, Record<string, unknown>]>([
    [
      "plain channel chatter",
      {},
      { text: "hello", mentionsBot: false, isDirect: false, key: "discord:1:2:900" },
    ],
    ["a user mention of the bot", { content: "<@100> what now?" }, { text: "what now?", mentionsBot: true }],
    [
      "a nickname mention of the bot",
      { content: "hey <@!100>, help" },
      { text: "hey , help", mentionsBot: true },
    ],
    ["a mention of the bot's role", { content: "<@&700> status" }, { text: "status", mentionsBot: true }],
    ["a mention of someone else", { content: "<@300> look" }, { text: "<@300> look", mentionsBot: false }],
    ["a mention of another role", { content: "<@&701> look" }, { mentionsBot: false }],
    [
      "a message in a thread",
      { location: { kind: "thread", guildId: "1", parentId: "2", threadId: "3" } },
      { key: "discord:1:2:3", isDirect: false },
    ],
    ["a DM", { location: { kind: "dm", channelId: "55" } }, { key: "discord:@dm:55", isDirect: true }],
    ["a reply", { referencedMessageId: "800" }, { replyTo: "800" }],
    ["not a reply", {}, { replyTo: undefined }],
    ["an edit", { isEdit: true }, { isEdit: true }],
    [
      "our own message",
      { author: { id: "100", displayName: "me", isBot: true } },
      { isSelf: true, isBot: true },
    ],
    [
      "another bot",
      { author: { id: "400", displayName: "bot", isBot: true } },
      { isSelf: false, isBot: true },
    ],
    ["a person", {}, { isSelf: false, isBot: false }],
  ])("%s", (_, change, expected) => {
    const message = toInboundMessage({ ...base, ...change }, bot);
    expect(message).not.toBeNull();
    if (!message) return;
    const seen: Record<string, unknown> = {
      text: message.text,
      mentionsBot: message.mentionsBot,
      isDirect: message.isDirect,
      key: encodeConversationKey(message.conversation),
      replyTo: message.replyTo,
      isEdit: message.isEdit,
      isSelf: message.author.isSelf,
      isBot: message.author.isBot,
    };
    for (const [field, value] of Object.entries(expected)) expect(seen[field], field).toEqual(value);
    expect(message.id).toBe("900");
    expect(message.sentAt).toBe(base.sentAt);
  });

  it("drops system notices (thread created, pins, joins)", () => {
    expect(toInboundMessage({ ...base, kind: "system" }, bot)).toBeNull();
  });
});
