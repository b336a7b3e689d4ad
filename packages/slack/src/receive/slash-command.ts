import type { InboundMessage } from "@switchboard/core";
import {
  directConversation,
  isDirectChannel,
  privateChannelConversation,
  slashCommandId,
} from "../conversations.ts";

/** The fields of a slash command payload we read. */
export interface SlashCommandPayload {
  readonly text: string;
  readonly trigger_id: string;
  readonly user_id: string;
  readonly user_name?: string;
  readonly team_id: string;
  readonly channel_id: string;
}

export interface SlashSettings {
  readonly dmConversations: "per-dm" | "per-thread";
}

/**
 * `/switchboard <command> args` → the core command `/<command> args` (bare `/switchboard` → `/help`).
 * In a channel it runs in the user's private channel-level conversation and is answered
 * ephemerally; in a DM kept as one conversation it runs in that conversation.
 */
export function mapSlashCommand(
  payload: SlashCommandPayload,
  settings: SlashSettings,
  now: number,
): InboundMessage {
  const words = payload.text.trim().replace(/^\/+/, "");
  const isDirect = isDirectChannel(payload.channel_id);
  const conversation =
    isDirect && settings.dmConversations === "per-dm"
      ? directConversation(payload.team_id, payload.channel_id)
      : privateChannelConversation(payload.team_id, payload.channel_id, payload.user_id);
  return {
    id: slashCommandId(payload.trigger_id),
    conversation,
    author: {
      id: payload.user_id,
      ...(payload.user_name ? { displayName: payload.user_name } : {}),
      isBot: false,
      isSelf: false,
    },
    text: words === "" ? "/help" : `/${words}`,
    isDirect,
    // Typing the app's own command is addressing it.
    mentionsBot: true,
    isEdit: false,
    sentAt: now,
    raw: payload,
  };
}
