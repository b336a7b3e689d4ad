/** What the stand-in stores; payloads.ts turns these into the JSON shapes Discord sends. */
import type { FileRecord } from "./cdn.ts";

export interface UserRecord {
  readonly id: string;
  readonly username: string;
  readonly bot: boolean;
}

export const ChannelKind = { GuildText: 0, DM: 1, PublicThread: 11 } as const;
export type ChannelKind = (typeof ChannelKind)[keyof typeof ChannelKind];

export interface ChannelRecord {
  readonly id: string;
  readonly type: ChannelKind;
  readonly name: string;
  readonly guildId?: string;
  /** Threads: the channel they hang off. */
  readonly parentId?: string;
  readonly ownerId?: string;
  /** Threads started from a message: that message (its id is the thread's id). */
  readonly starterMessageId?: string;
  readonly autoArchiveMinutes?: number;
  /** DMs: the person the bot talks to. */
  readonly recipientId?: string;
  readonly createdAt: number;
}

export const MessageKind = { Default: 0, Reply: 19, ThreadStarter: 21, ChatInputCommand: 20 } as const;

export interface MessageRecord {
  readonly id: string;
  readonly channelId: string;
  readonly guildId?: string;
  readonly authorId: string;
  content: string;
  readonly type: number;
  flags: number;
  /** The message replied to (always in the same channel: Discord refuses cross-channel replies). */
  readonly referenceId?: string;
  readonly mentionIds: readonly string[];
  readonly mentionRoleIds: readonly string[];
  readonly createdAt: number;
  editedAt?: number;
  /** The thread started from this message, once there is one. */
  threadId?: string;
  /** Interaction responses: who used which command. */
  readonly interaction?: { readonly id: string; readonly name: string; readonly userId: string };
  /** Files sent with it (on the stand-in's CDN). */
  readonly attachments?: readonly FileRecord[];
  /** Bot messages: every JSON body the bot sent to create or edit it, in order. */
  readonly bodies: Record<string, unknown>[];
  /** Messages a webhook posted: the webhook, and the name and avatar the message shows. */
  readonly webhook?: { readonly id: string; readonly username: string; readonly avatarUrl?: string };
}

/** A channel webhook (Incoming), as the bot created it. */
export interface WebhookRecord {
  readonly id: string;
  readonly token: string;
  readonly channelId: string;
  readonly guildId: string;
  /** The application that made it (webhooks a bot creates are application-owned). */
  readonly applicationId: string;
  readonly name: string;
  readonly creatorId: string;
}

export interface InteractionRecord {
  readonly id: string;
  readonly token: string;
  readonly name: string;
  readonly channelId: string;
  readonly guildId?: string;
  readonly userId: string;
  readonly options: readonly { name: string; value: string }[];
  readonly createdAt: number;
  callback?: { readonly at: number; readonly type: number; readonly flags: number };
  /** Component interactions: the message whose button was pressed, and the button's custom id. */
  readonly messageId?: string;
  readonly customId?: string;
  originalMessageId?: string;
  readonly followUpIds: string[];
}
