import type { InboundAttachment, InboundMessage } from "@switchboard/core/adapter";
import { type ChannelLocation, conversationOf, placeOfMessage } from "./places.ts";

/** What the adapter needs to know about one Discord message, read off discord.js structures. */
export interface MessageFacts {
  readonly id: string;
  readonly content: string;
  /** Users write `default` and `reply` messages; joins, pins, thread notices etc. are `system`. */
  readonly kind: "user" | "system";
  readonly author: { readonly id: string; readonly displayName: string; readonly isBot: boolean };
  readonly location: ChannelLocation;
  /** The message this one replies to (reply references only, not forwards). */
  readonly referencedMessageId?: string;
  readonly sentAt: number;
  /** A `messageUpdate` whose text changed. */
  readonly isEdit: boolean;
  /** The files sent with it (see discordAttachments). */
  readonly attachments?: readonly InboundAttachment[];
}

export interface BotIdentity {
  readonly userId: string;
  /** The bot's managed roles: members sometimes mention the role instead of the user. */
  readonly roleIds: readonly string[];
}

function botMentionPattern(bot: BotIdentity): RegExp {
  const roles = bot.roleIds.map((id) => `|<@&${id}>`).join("");
  return new RegExp(`<@!?${bot.userId}>${roles}`, "g");
}

/**
 * A Discord message as the engine sees it, or null for messages that are not anyone's words
 * (system notices). Facts are reported, not judged: our own and other bots' messages and edits
 * go through marked, and the engine decides.
 */
export function toInboundMessage(facts: MessageFacts, bot: BotIdentity): InboundMessage | null {
  if (facts.kind === "system") return null;
  const mention = botMentionPattern(bot);
  const mentionsBot = facts.content.match(mention) !== null;
  const text = facts.content
    .replace(mention, " ")
    .replace(/[ \t]{2,}/g, " ")
    .trim();
  return {
    id: facts.id,
    conversation: conversationOf(placeOfMessage(facts.location, facts.id)),
    author: {
      id: facts.author.id,
      displayName: facts.author.displayName,
      isBot: facts.author.isBot,
      isSelf: facts.author.id === bot.userId,
    },
    text,
    isDirect: facts.location.kind === "dm",
    mentionsBot,
    ...(facts.referencedMessageId === undefined ? {} : { replyTo: facts.referencedMessageId }),
    isEdit: facts.isEdit,
    sentAt: facts.sentAt,
    ...(facts.attachments?.length ? { attachments: facts.attachments } : {}),
  };
}
