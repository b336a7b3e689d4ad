import {
  type Channel,
  ChannelType,
  type Message,
  MessageFlags,
  MessageReferenceType,
  MessageType,
  type PartialMessage,
} from "discord.js";
import type { MessageFacts } from "./inbound-message.ts";
import { discordAttachments } from "./message-files.ts";
import type { ChannelLocation } from "./places.ts";

/** Where a channel sits; null for places the bot does not serve (group DMs, voice-only channels). */
export async function locationOf(channel: Channel | null): Promise<ChannelLocation | null> {
  if (!channel) return null;
  if (channel.type === ChannelType.DM) return { kind: "dm", channelId: channel.id };
  if (channel.isThread()) {
    // A thread known only from a message (partial) lacks its parent until fetched.
    const parentId = channel.parentId ?? (await channel.fetch()).parentId;
    return parentId ? { kind: "thread", guildId: channel.guildId, parentId, threadId: channel.id } : null;
  }
  if (!channel.isDMBased() && channel.isTextBased())
    return { kind: "channel", guildId: channel.guildId, channelId: channel.id };
  return null;
}

/** Only plain messages and replies are somebody's words; everything else is a system notice. */
const USER_MESSAGE_TYPES: readonly MessageType[] = [MessageType.Default, MessageType.Reply];

export async function messageFacts(
  message: Message | PartialMessage,
  isEdit: boolean,
): Promise<MessageFacts | null> {
  if (message.partial || !message.author) return null;
  const location = await locationOf(message.channel);
  if (!location) return null;
  const reference = message.reference;
  const repliesTo =
    message.type === MessageType.Reply && reference?.type === MessageReferenceType.Default
      ? reference.messageId
      : undefined;
  return {
    id: message.id,
    content: message.content,
    kind: USER_MESSAGE_TYPES.includes(message.type) ? "user" : "system",
    author: {
      id: message.author.id,
      displayName: message.member?.displayName ?? message.author.displayName,
      isBot: message.author.bot,
    },
    location,
    ...(repliesTo ? { referencedMessageId: repliesTo } : {}),
    sentAt: message.createdTimestamp,
    isEdit,
    // An edit changes the text only: its files were read with the message.
    ...(isEdit || message.attachments.size === 0
      ? {}
      : {
          attachments: discordAttachments(
            {
              channelId: message.channelId,
              id: message.id,
              isVoiceMessage: message.flags.has(MessageFlags.IsVoiceMessage),
            },
            message.attachments.values(),
          ),
        }),
  };
}
