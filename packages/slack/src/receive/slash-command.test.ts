import { encodeConversationKey } from "@switchboard/core/adapter";
import { describe, expect, it } from "vitest";
import { mapSlashCommand, type SlashCommandPayload } from "./slash-command.ts";

const payload = (text: string, channel = "C01"): SlashCommandPayload => ({
  text,
  trigger_id: "123.456.abc",
  user_id: "U0ALICE",
  user_name: "alice",
  team_id: "T01",
  channel_id: channel,
});

const SETTINGS = { dmConversations: "per-dm", commandWords: ["status", "reset", "supervisor"] } as const;

describe("mapSlashCommand", () => {
  const cases = [
    {
      name: "a command word with arguments",
      text: "supervisor show my invoices",
      expected: "/supervisor show my invoices",
    },
    { name: "a bare command", text: "status", expected: "/status" },
    { name: "nothing after the command asks for help", text: "   ", expected: "/help" },
    { name: "a leading slash typed out of habit", text: "/reset", expected: "/reset" },
    {
      name: "a question is passed on as written, without a slash",
      text: "I was charged twice for my plan",
      expected: "I was charged twice for my plan",
    },
    { name: "a command word is matched regardless of case", text: "Status", expected: "/status" },
    {
      name: "a word that only starts like a command is a question",
      text: "statuses?",
      expected: "statuses?",
    },
  ];
  for (const { name, text, expected } of cases) {
    it(name, () => {
      expect(mapSlashCommand(payload(text), SETTINGS, 0).text).toBe(expected);
    });
  }

  it("runs in the user's private channel-level conversation, addressed to the bot", () => {
    const message = mapSlashCommand(payload("status"), SETTINGS, 42);
    expect(encodeConversationKey(message.conversation)).toBe("slack:T01:C01:@U0ALICE");
    expect(message).toMatchObject({
      id: "slash:123.456.abc",
      mentionsBot: true,
      isDirect: false,
      sentAt: 42,
      author: { id: "U0ALICE", isBot: false, isSelf: false },
    });
  });

  it("runs in the DM's conversation when the DM is one conversation", () => {
    const message = mapSlashCommand(payload("reset", "D01"), SETTINGS, 0);
    expect(encodeConversationKey(message.conversation)).toBe("slack:T01:D01");
    expect(message.isDirect).toBe(true);
  });

  it("stays private in a DM split into threads", () => {
    const message = mapSlashCommand(
      payload("reset", "D01"),
      { ...SETTINGS, dmConversations: "per-thread" },
      0,
    );
    expect(encodeConversationKey(message.conversation)).toBe("slack:T01:D01:@U0ALICE");
  });
});
