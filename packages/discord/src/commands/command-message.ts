import type { InboundMessage } from "@switchboard/core/adapter";
import { type ChannelLocation, conversationOf, placeOfMessage } from "../receive/places.ts";
import { commandText, interactionMessageId, type SlashCommand } from "./slash-commands.ts";

export interface CommandUse {
  readonly interactionId: string;
  readonly command: SlashCommand;
  readonly argument: string | null;
  readonly location: ChannelLocation;
  /**
   * Used in a top-level channel, the command starts a conversation of its own rooted at the
   * bot's response message (a thread can later be started on it); the interaction id stands
   * in when Discord reported no response message.
   */
  readonly responseMessageId: string | null;
  readonly user: { readonly id: string; readonly displayName: string };
  readonly usedAt: number;
}

/**
 * A slash command as the same chat command core runs for typed text: `/name args`, in the
 * conversation of the thread or DM it was used in. Using a command is addressing the bot.
 */
export function commandMessage(use: CommandUse): InboundMessage {
  const root = use.responseMessageId ?? use.interactionId;
  return {
    id: interactionMessageId(use.interactionId),
    conversation: conversationOf(placeOfMessage(use.location, root)),
    author: { id: use.user.id, displayName: use.user.displayName, isBot: false, isSelf: false },
    text: commandText(use.command, use.argument),
    isDirect: use.location.kind === "dm",
    mentionsBot: true,
    isEdit: false,
    sentAt: use.usedAt,
  };
}
