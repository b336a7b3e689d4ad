import type { InboundMessage } from "@switchboard/core/adapter";
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
  /** Words that name a command (`/switchboard reset`); any other text is a question. */
  readonly commandWords: readonly string[];
}

/**
 * The text after the slash command, as the engine reads it: a known command word (or a `/`
 * typed out of habit) is a command; anything else is a question, passed on as written.
 */
function readSlashText(text: string, commandWords: readonly string[]): string {
  const trimmed = text.trim();
  if (trimmed === "" || /^\/+$/.test(trimmed)) return "/help";
  if (trimmed.startsWith("/")) return `/${trimmed.replace(/^\/+/, "")}`;
  const word = /^([A-Za-z][\w-]*)(?:\s|$)/.exec(trimmed)?.[1]?.toLowerCase();
  return word !== undefined && commandWords.includes(word)
    ? `/${word}${trimmed.slice(word.length)}`
    : trimmed;
}

/**
 * `/switchboard <command> args` → the core command `/<command> args` (bare `/switchboard` → `/help`);
 * `/switchboard <question>` → the question.
 * In a channel it runs in the user's private channel-level conversation and is answered
 * ephemerally; in a DM kept as one conversation it runs in that conversation.
 */
export function mapSlashCommand(
  payload: SlashCommandPayload,
  settings: SlashSettings,
  now: number,
): InboundMessage {
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
    text: readSlashText(payload.text, settings.commandWords),
    isDirect,
    // Typing the app's own command is addressing it.
    mentionsBot: true,
    isEdit: false,
    sentAt: now,
    raw: payload,
  };
}
