import type { InboundMessage } from "../conversation/messages.ts";

export type RejectReason =
  | "own-message"
  | "bot-message"
  | "edit"
  | "empty"
  | "not-addressed"
  | "duplicate"
  | "not-allowed"
  | "pairing";

/** Messages never answered, whatever the conversation: our own, other bots', edits, empty ones. */
export function screenMessage(message: InboundMessage): RejectReason | null {
  if (message.author.isSelf) return "own-message";
  if (message.author.isBot) return "bot-message";
  if (message.isEdit) return "edit";
  if (message.text.trim() === "" && (message.attachments?.length ?? 0) === 0) return "empty";
  return null;
}

export interface AddressFacts {
  /** The message replies to one of the bot's messages. */
  readonly repliesToBot: boolean;
  /** The bot already takes part in the message's conversation. */
  readonly botTakesPart: boolean;
}

/** Mention gating: DMs always; group places when mentioned, replying to the bot, or in a conversation the bot is in. */
export function isAddressedToBot(message: InboundMessage, facts: AddressFacts): boolean {
  return message.isDirect || message.mentionsBot || facts.repliesToBot || facts.botTakesPart;
}
