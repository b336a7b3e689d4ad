import type { ConversationRef, InboundMessage } from "@switchboard/core/adapter";
import { directConversation, isDirectChannel, messageId, threadConversation } from "../conversations.ts";
import { type BotMentionFacts, readInboundText } from "./inbound-text.ts";
import { slackFiles } from "./message-files.ts";

export interface ReceiveSettings extends BotMentionFacts {
  readonly botId: string;
  /** Allowlist of channel ids; empty means every channel. */
  readonly channels: readonly string[];
  readonly directMessages: boolean;
  readonly dmConversations: "per-dm" | "per-thread";
}

/** The fields of a Slack `message` / `app_mention` event we read; everything else stays in `raw`. */
interface MessageFields {
  readonly subtype?: string;
  readonly channel?: string;
  readonly channel_type?: string;
  readonly user?: string;
  readonly bot_id?: string;
  readonly text?: string;
  readonly ts?: string;
  readonly thread_ts?: string;
  readonly files?: unknown;
  readonly message?: MessageFields;
}

/**
 * When Slack sends a message again because its author edited it (an `app_mention` with `edited`:
 * the edit added or kept a mention), the edit's ts; undefined for a first delivery.
 */
export function editedTsOf(event: unknown): string | undefined {
  if (typeof event !== "object" || event === null) return undefined;
  const edited = (event as Record<string, unknown>).edited;
  if (typeof edited !== "object" || edited === null) return undefined;
  return asString((edited as Record<string, unknown>).ts);
}

function asString(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

function readFields(value: unknown): MessageFields {
  if (typeof value !== "object" || value === null) return {};
  const record = value as Record<string, unknown>;
  const nested = record.message;
  return {
    subtype: asString(record.subtype),
    channel: asString(record.channel),
    channel_type: asString(record.channel_type),
    user: asString(record.user),
    bot_id: asString(record.bot_id),
    text: typeof record.text === "string" ? record.text : undefined,
    ts: asString(record.ts),
    thread_ts: asString(record.thread_ts),
    files: record.files,
    message: typeof nested === "object" && nested !== null ? readFields(nested) : undefined,
  };
}

/** Subtypes that are people writing; everything else (joins, topic changes, deletions…) is not a message to answer. */
const WRITTEN_SUBTYPES = new Set([undefined, "file_share", "thread_broadcast", "me_message", "bot_message"]);

export type EventKind = "message" | "app_mention";

/** DMs unless switched off; channels in the allowlist, or all when it is empty. */
export function isServedPlace(channel: string, isDirect: boolean, settings: ReceiveSettings): boolean {
  if (isDirect) return settings.directMessages;
  return settings.channels.length === 0 || settings.channels.includes(channel);
}

/**
 * A Slack `message` or `app_mention` event → the message the engine sees, or null when it is not
 * a message at all (joins, deletions) or comes from a place we do not serve. Facts are reported,
 * never decided here: edits, bots and our own messages go to the engine marked as such.
 */
export function mapMessageEvent(
  kind: EventKind,
  event: unknown,
  teamId: string,
  settings: ReceiveSettings,
): InboundMessage | null {
  const outer = readFields(event);
  const isEdit = outer.subtype === "message_changed";
  if (!isEdit && !WRITTEN_SUBTYPES.has(outer.subtype)) return null;
  const written = isEdit ? outer.message : outer;
  const channel = outer.channel;
  if (!written || !channel || !written.ts) return null;

  const isDirect = kind === "message" && isDirectChannel(channel, outer.channel_type);
  if (!isServedPlace(channel, isDirect, settings)) return null;

  const { text, mentionsBot } = readInboundText(written.text ?? "", settings);
  const isSelf =
    written.user === settings.botUserId ||
    (written.bot_id !== undefined && written.bot_id === settings.botId);
  const isBot =
    isSelf ||
    written.bot_id !== undefined ||
    written.subtype === "bot_message" ||
    outer.subtype === "bot_message";
  const attachments = slackFiles(written.files);
  return {
    id: messageId(channel, written.ts),
    conversation: conversationOf(teamId, channel, written.ts, written.thread_ts, isDirect, settings),
    author: { id: written.user ?? written.bot_id ?? "unknown", isBot, isSelf },
    text,
    isDirect,
    mentionsBot: kind === "app_mention" || mentionsBot,
    isEdit,
    sentAt: Math.round(Number.parseFloat(written.ts) * 1000),
    ...(attachments.length > 0 ? { attachments } : {}),
    raw: event,
  };
}

function conversationOf(
  teamId: string,
  channel: string,
  ts: string,
  threadTs: string | undefined,
  isDirect: boolean,
  settings: ReceiveSettings,
): ConversationRef {
  if (threadTs) return threadConversation(teamId, channel, threadTs);
  if (isDirect && settings.dmConversations === "per-dm") return directConversation(teamId, channel);
  return threadConversation(teamId, channel, ts);
}
