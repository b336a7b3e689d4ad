import { encodeConversationKey } from "@switchboard/core/adapter";
import { describe, expect, it } from "vitest";
import { type CommandUse, commandMessage } from "./command-message.ts";
import { findSlashCommand } from "./slash-commands.ts";

const supervisor = findSlashCommand("supervisor");
if (!supervisor) throw new Error("the /supervisor slash command is missing");
const base: CommandUse = {
  interactionId: "4000",
  command: supervisor,
  argument: "show me my invoices",
  location: { kind: "thread", guildId: "1", parentId: "2", threadId: "3" },
  responseMessageId: "5000",
  user: { id: "200", displayName: "Ada" },
  usedAt: 1_700_000_000_000,
};

describe("commandMessage", () => {
  it.each<[string, Partial<CommandUse>, string, boolean]>([
    ["in a thread: that thread's conversation", {}, "discord:1:2:3", false],
    ["in a DM: the DM's conversation", { location: { kind: "dm", channelId: "9" } }, "discord:@dm:9", true],
    [
      "in a channel: a conversation rooted at the bot's response",
      { location: { kind: "channel", guildId: "1", channelId: "2" } },
      "discord:1:2:5000",
      false,
    ],
    [
      "in a channel without a response message: rooted at the interaction",
      { location: { kind: "channel", guildId: "1", channelId: "2" }, responseMessageId: null },
      "discord:1:2:4000",
      false,
    ],
  ])("%s", (_, change, key, isDirect) => {
    const message = commandMessage({ ...base, ...change });
    expect(encodeConversationKey(message.conversation)).toBe(key);
    expect(message.isDirect).toBe(isDirect);
    expect(message).toMatchObject({
      id: "interaction-4000",
      text: "/supervisor show me my invoices",
      mentionsBot: true,
      isEdit: false,
      author: { id: "200", isBot: false, isSelf: false },
    });
  });
});
