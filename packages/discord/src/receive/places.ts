import type { ConversationRef } from "@switchboard/core/adapter";

export const PLATFORM = "discord";
/** The space part of a DM conversation key; no guild id can look like it. */
export const DM_SPACE = "@dm";

/** Where on Discord a message was written. */
export type ChannelLocation =
  | { readonly kind: "dm"; readonly channelId: string }
  | { readonly kind: "channel"; readonly guildId: string; readonly channelId: string }
  | {
      readonly kind: "thread";
      readonly guildId: string;
      readonly parentId: string;
      readonly threadId: string;
    };

/**
 * The place a conversation lives: a DM channel, or a thread of a guild channel. `rootId` is the
 * thread's id — which for a thread started from a message is that message's id, so a mention's
 * conversation is known before its thread exists. A guild channel itself is a place too, for what
 * the bot posts on its own there (a schedule's new messages); people's messages never map to it.
 */
export type ConversationPlace =
  | { readonly kind: "dm"; readonly channelId: string }
  | {
      readonly kind: "thread";
      readonly guildId: string;
      readonly channelId: string;
      readonly rootId: string;
    }
  | { readonly kind: "channel"; readonly guildId: string; readonly channelId: string };

/**
 * The one owner of the Discord ↔ conversation mapping:
 * thread `discord:<guild>:<channel>:<thread>`, top-level message `discord:<guild>:<channel>:<message>`
 * (its future thread), DM `discord:@dm:<dm channel>`, a guild channel itself (the bot's own posts)
 * `discord:<guild>:<channel>`.
 */
export function placeOfMessage(location: ChannelLocation, messageId: string): ConversationPlace {
  switch (location.kind) {
    case "dm":
      return { kind: "dm", channelId: location.channelId };
    case "thread":
      return {
        kind: "thread",
        guildId: location.guildId,
        channelId: location.parentId,
        rootId: location.threadId,
      };
    case "channel":
      return { kind: "thread", guildId: location.guildId, channelId: location.channelId, rootId: messageId };
  }
}

export function conversationOf(place: ConversationPlace): ConversationRef {
  switch (place.kind) {
    case "dm":
      return { platform: PLATFORM, path: [DM_SPACE, place.channelId] };
    case "channel":
      return { platform: PLATFORM, path: [place.guildId, place.channelId] };
    case "thread":
      return { platform: PLATFORM, path: [place.guildId, place.channelId, place.rootId] };
  }
}

export class NotADiscordConversationError extends Error {
  constructor(ref: ConversationRef) {
    super(`not a Discord conversation: ${ref.platform}:${ref.path.join(":")}`);
    this.name = "NotADiscordConversationError";
  }
}

export function placeOf(ref: ConversationRef): ConversationPlace {
  const [space, channelId, rootId, ...rest] = ref.path;
  if (ref.platform !== PLATFORM || !space || !channelId || rest.length > 0)
    throw new NotADiscordConversationError(ref);
  if (space === DM_SPACE && rootId === undefined) return { kind: "dm", channelId };
  if (space !== DM_SPACE && rootId) return { kind: "thread", guildId: space, channelId, rootId };
  if (space !== DM_SPACE && rootId === undefined) return { kind: "channel", guildId: space, channelId };
  throw new NotADiscordConversationError(ref);
}
