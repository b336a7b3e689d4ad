import type { ChatInputCommandInteraction } from "discord.js";
import { describe, expect, it } from "vitest";
import { InteractionReplies } from "./interaction-replies.ts";

/** Records what would be sent through an interaction. */
function recordingInteraction(createdTimestamp: number) {
  const sent: {
    via: "editReply" | "followUp";
    content: string;
    flags?: unknown;
    allowedMentions?: unknown;
  }[] = [];
  let next = 0;
  const interaction = {
    createdTimestamp,
    async editReply(options: { content: string; allowedMentions?: unknown }) {
      sent.push({ via: "editReply", content: options.content, allowedMentions: options.allowedMentions });
      return { id: `m${next++}` };
    },
    async followUp(options: { content: string; flags?: unknown; allowedMentions?: unknown }) {
      sent.push({
        via: "followUp",
        content: options.content,
        flags: options.flags,
        allowedMentions: options.allowedMentions,
      });
      return { id: `m${next++}` };
    },
  };
  return { interaction: interaction as unknown as ChatInputCommandInteraction, sent };
}

describe("InteractionReplies", () => {
  it("edits the deferred reply first, then follows up, keeping the answer private when the command was", async () => {
    const replies = new InteractionReplies(() => 1_000);
    const { interaction, sent } = recordingInteraction(1_000);
    replies.add("interaction-1", interaction, { ephemeral: true });
    expect(replies.routes("interaction-1")).toBe(true);
    expect(await replies.post("interaction-1", "one")).toBe("m0");
    expect(await replies.post("interaction-1", "two")).toBe("m1");
    expect(sent).toEqual([
      { via: "editReply", content: "one", allowedMentions: { parse: [], repliedUser: false } },
      { via: "followUp", content: "two", flags: 64, allowedMentions: { parse: [], repliedUser: false } },
    ]);
  });

  it("routes nothing it was not given, and nothing once the interaction token is about to expire", () => {
    let now = 0;
    const replies = new InteractionReplies(() => now);
    replies.add("interaction-1", recordingInteraction(0).interaction, { ephemeral: false });
    expect(replies.routes("1234")).toBe(false);
    expect(replies.routes(undefined)).toBe(false);
    now = 14 * 60 * 1000 - 1;
    expect(replies.routes("interaction-1")).toBe(true);
    now = 14 * 60 * 1000;
    expect(replies.routes("interaction-1")).toBe(false);
  });

  it("knows which conversations are a command's own until their first answer", async () => {
    const replies = new InteractionReplies(() => 0);
    replies.add("interaction-1", recordingInteraction(0).interaction, {
      ephemeral: true,
      conversationRoot: "500",
    });
    replies.add("interaction-2", recordingInteraction(0).interaction, { ephemeral: false });
    expect(replies.isAnsweringConversation("500")).toBe(true);
    expect(replies.isAnsweringConversation("501")).toBe(false);
    await replies.post("interaction-1", "done");
    expect(replies.isAnsweringConversation("500")).toBe(false);
  });
});
