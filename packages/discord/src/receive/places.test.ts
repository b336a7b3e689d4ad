import { decodeConversationKey, encodeConversationKey } from "@switchboard/core/adapter";
import { describe, expect, it } from "vitest";
import {
  type ChannelLocation,
  conversationOf,
  NotADiscordConversationError,
  placeOf,
  placeOfMessage,
} from "./places.ts";

describe("conversation places", () => {
  it.each<[string, ChannelLocation, string, string]>([
    ["a DM channel is one conversation", { kind: "dm", channelId: "500" }, "9", "discord:@dm:500"],
    [
      "a message in a thread belongs to the thread",
      { kind: "thread", guildId: "1", parentId: "2", threadId: "3" },
      "9",
      "discord:1:2:3",
    ],
    [
      "a top-level message roots its own (future) thread",
      { kind: "channel", guildId: "1", channelId: "2" },
      "9",
      "discord:1:2:9",
    ],
  ])("%s", (_, location, messageId, key) => {
    const ref = conversationOf(placeOfMessage(location, messageId));
    expect(encodeConversationKey(ref)).toBe(key);
    expect(placeOf(decodeConversationKey(key))).toEqual(placeOfMessage(location, messageId));
  });

  it("a guild channel itself is the place of the bot's own posts, and round-trips", () => {
    const ref = decodeConversationKey("discord:1:2");
    expect(placeOf(ref)).toEqual({ kind: "channel", guildId: "1", channelId: "2" });
    expect(encodeConversationKey(conversationOf(placeOf(ref)))).toBe("discord:1:2");
  });

  it.each([["slack:1:2:3"], ["discord:1"], ["discord:@dm:5:6"], ["discord:1:2:3:4"]])("refuses %s", (key) => {
    expect(() => placeOf(decodeConversationKey(key))).toThrow(NotADiscordConversationError);
  });
});
