import { createHmac, randomBytes } from "node:crypto";
import { BOT_USER_ID, type StoredMessage, TEAM_ID, type WorkspaceState } from "./workspace-state.ts";

export const SIGNING_SECRET = "stand-in-signing-secret";
export const APP_ID = "A0SWITCH";

export type EventBody = Record<string, unknown> & { event_id: string; event: Record<string, unknown> };

/** `X-Slack-Signature` as Slack computes it: v0, HMAC-SHA256 of `v0:<timestamp>:<body>`. */
export function slackSignature(secret: string, timestamp: number, body: string): string {
  return `v0=${createHmac("sha256", secret).update(`v0:${timestamp}:${body}`).digest("hex")}`;
}

/** The Events API envelope around one event. */
export function eventCallback(event: Record<string, unknown>): EventBody {
  return {
    token: "legacy-verification-token",
    team_id: TEAM_ID,
    api_app_id: APP_ID,
    event,
    type: "event_callback",
    event_id: `Ev${randomBytes(6).toString("hex").toUpperCase()}`,
    event_time: Math.floor(Date.now() / 1000),
    authorizations: [
      {
        enterprise_id: null,
        team_id: TEAM_ID,
        user_id: BOT_USER_ID,
        is_bot: true,
        is_enterprise_install: false,
      },
    ],
    is_ext_shared_channel: false,
  };
}

function channelTypeOf(state: WorkspaceState, channel: string): string {
  return state.channels.get(channel)?.type === "im" ? "im" : "channel";
}

/** The `message` event Slack sends for a stored message (message.channels / message.im subscriptions). */
export function messageEvent(state: WorkspaceState, message: StoredMessage): Record<string, unknown> {
  return {
    type: "message",
    ...(message.subtype ? { subtype: message.subtype } : {}),
    channel: message.channel,
    channel_type: channelTypeOf(state, message.channel),
    ...(message.user ? { user: message.user } : {}),
    ...(message.bot_id
      ? { bot_id: message.bot_id, bot_profile: { id: message.bot_id, name: "a bot", team_id: TEAM_ID } }
      : {}),
    text: message.text,
    ts: message.ts,
    event_ts: message.ts,
    ...(message.thread_ts ? { thread_ts: message.thread_ts, parent_user_id: BOT_USER_ID } : {}),
    ...(message.files ? { files: message.files } : {}),
    ...(message.bot_id ? {} : { client_msg_id: randomBytes(8).toString("hex") }),
    team: TEAM_ID,
  };
}

/** The `app_mention` event Slack sends alongside the message when the bot is mentioned in a channel. */
export function appMentionEvent(message: StoredMessage): Record<string, unknown> {
  return {
    type: "app_mention",
    channel: message.channel,
    user: message.user,
    text: message.text,
    ts: message.ts,
    event_ts: message.ts,
    ...(message.thread_ts ? { thread_ts: message.thread_ts } : {}),
    ...(message.files ? { files: message.files } : {}),
    client_msg_id: randomBytes(8).toString("hex"),
    team: TEAM_ID,
  };
}

/** `message_changed`: an edit arrives as a new event that carries the message under its old ts. */
export function messageChangedEvent(
  state: WorkspaceState,
  message: StoredMessage,
  previousText: string,
): Record<string, unknown> {
  const editTs = state.nextTs();
  const inner = {
    type: "message",
    user: message.user,
    text: message.text,
    ts: message.ts,
    ...(message.thread_ts ? { thread_ts: message.thread_ts } : {}),
  };
  return {
    type: "message",
    subtype: "message_changed",
    hidden: true,
    channel: message.channel,
    channel_type: channelTypeOf(state, message.channel),
    ts: editTs,
    event_ts: editTs,
    message: { ...inner, edited: { user: message.user, ts: editTs } },
    previous_message: { ...inner, text: previousText },
  };
}

export interface SlashCommandFields {
  readonly command: string;
  readonly text: string;
  readonly user: string;
  readonly channel: string;
  readonly triggerId: string;
  readonly responseUrl: string;
}

/** A slash command payload, as form fields (HTTP) or an object (Socket Mode). */
export function slashCommandPayload(fields: SlashCommandFields): Record<string, string> {
  return {
    token: "legacy-verification-token",
    team_id: TEAM_ID,
    team_domain: "switchboard-test",
    channel_id: fields.channel,
    channel_name: fields.channel.startsWith("D") ? "directmessage" : "general",
    user_id: fields.user,
    user_name: fields.user.toLowerCase(),
    command: fields.command,
    text: fields.text,
    api_app_id: APP_ID,
    is_enterprise_install: "false",
    response_url: fields.responseUrl,
    trigger_id: fields.triggerId,
  };
}

/**
 * The `block_actions` payload Slack sends when someone presses a button on a message: who, where,
 * the message as Slack stores it (blocks included), and the pressed element.
 */
export function blockActionsPayload(input: {
  message: StoredMessage;
  actionId: string;
  user: string;
  responseUrl: string;
  triggerId: string;
}): Record<string, unknown> {
  const { message, actionId, user } = input;
  const button = (message.blocks ?? [])
    .filter((block) => block.type === "actions")
    .flatMap((block) => block.elements as Record<string, unknown>[])
    .find((element) => element.action_id === actionId);
  if (!button) throw new Error(`message ${message.ts} has no button ${actionId} to press`);
  const block = (message.blocks ?? []).find((candidate) =>
    (candidate.elements as Record<string, unknown>[] | undefined)?.includes(button),
  );
  return {
    type: "block_actions",
    user: { id: user, username: user.toLowerCase(), name: user.toLowerCase(), team_id: TEAM_ID },
    api_app_id: APP_ID,
    token: "legacy-verification-token",
    container: {
      type: "message",
      message_ts: message.ts,
      channel_id: message.channel,
      is_ephemeral: false,
      ...(message.thread_ts ? { thread_ts: message.thread_ts } : {}),
    },
    trigger_id: input.triggerId,
    team: { id: TEAM_ID, domain: "switchboard-test" },
    enterprise: null,
    is_enterprise_install: false,
    channel: { id: message.channel, name: message.channel.startsWith("D") ? "directmessage" : "general" },
    message: {
      type: "message",
      user: message.user,
      bot_id: message.bot_id,
      text: message.text,
      ts: message.ts,
      ...(message.thread_ts ? { thread_ts: message.thread_ts } : {}),
      blocks: message.blocks,
      // A message posted under a custom name (chat:write.customize) says so.
      ...(message.username ? { username: message.username } : {}),
      ...(message.icons ? { icons: message.icons } : {}),
    },
    state: { values: {} },
    response_url: input.responseUrl,
    actions: [
      {
        ...button,
        block_id: block?.block_id,
        action_ts: `${Math.floor(Date.now() / 1000)}.000100`,
      },
    ],
  };
}
