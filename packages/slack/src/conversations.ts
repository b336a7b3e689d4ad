import type { ConversationRef } from "@switchboard/core/adapter";

/**
 * The one owner of how Slack places map to conversation keys, and back to where to post:
 *
 * - `slack:<team>:<channel>:<thread_ts>` — a thread (channel or DM); its root's ts names it.
 * - `slack:<team>:<dm channel>` — a whole direct message, top level (dmConversations: per-dm).
 * - `slack:<team>:<channel>:@<user>` — one user's private channel-level conversation started by
 *   the slash command; everything in it is posted ephemerally to that user.
 *
 * A thread ts never starts with `@`, so the shapes cannot be confused.
 */
export const SLACK_PLATFORM = "slack";

export function threadConversation(team: string, channel: string, threadTs: string): ConversationRef {
  return { platform: SLACK_PLATFORM, path: [team, channel, threadTs] };
}

export function directConversation(team: string, channel: string): ConversationRef {
  return { platform: SLACK_PLATFORM, path: [team, channel] };
}

export function privateChannelConversation(team: string, channel: string, user: string): ConversationRef {
  return { platform: SLACK_PLATFORM, path: [team, channel, `@${user}`] };
}

export type PostTarget =
  | { readonly kind: "thread"; readonly channel: string; readonly threadTs: string }
  | { readonly kind: "top-level"; readonly channel: string }
  | { readonly kind: "ephemeral"; readonly channel: string; readonly user: string };

export class ForeignConversationError extends Error {
  constructor(conversation: ConversationRef) {
    super(
      `not a Slack conversation this adapter made: ${conversation.platform}:${conversation.path.join(":")}`,
    );
    this.name = "ForeignConversationError";
  }
}

export function postTargetOf(conversation: ConversationRef): PostTarget {
  const [team, channel, third, ...rest] = conversation.path;
  if (conversation.platform !== SLACK_PLATFORM || !team || !channel || rest.length > 0 || third === "") {
    throw new ForeignConversationError(conversation);
  }
  if (third === undefined) return { kind: "top-level", channel };
  if (third.startsWith("@")) return { kind: "ephemeral", channel, user: third.slice(1) };
  return { kind: "thread", channel, threadTs: third };
}

/**
 * Slack names a message by channel and ts; `channel:ts` is our message id, so the copies of one
 * message (a `message` and an `app_mention` event, retries) all carry the same id.
 */
export function messageId(channel: string, ts: string): string {
  return `${channel}:${ts}`;
}

export function parseMessageId(id: string): { channel: string; ts: string } | undefined {
  const match = /^([A-Z0-9]+):(\d+\.\d+)$/.exec(id);
  return match?.[1] && match[2] ? { channel: match[1], ts: match[2] } : undefined;
}

/** Slash command invocations have no ts; their trigger id names them. */
export function slashCommandId(triggerId: string): string {
  return `${SLASH_COMMAND_PREFIX}${triggerId}`;
}

const SLASH_COMMAND_PREFIX = "slash:";

/** Whether a message id stands for a slash command invocation (see slashCommandId). */
export function isSlashCommandId(id: string | undefined): id is string {
  return id?.startsWith(SLASH_COMMAND_PREFIX) === true;
}

/** Direct message channels (im) have ids starting with D. */
export function isDirectChannel(channel: string, channelType?: string): boolean {
  return channelType === "im" || (channelType === undefined && channel.startsWith("D"));
}
