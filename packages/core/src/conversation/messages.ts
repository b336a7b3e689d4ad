import type { ApprovalPrompt } from "./approvals.ts";
import type { InboundAttachment } from "./files.ts";
import type { AgentIdentity } from "./identity.ts";
import type { ConversationRef } from "./ref.ts";

export interface Author {
  /** Platform user id (MXID, Discord snowflake, Slack user id…). */
  readonly id: string;
  readonly displayName?: string;
  /** True for any bot account, including our own. */
  readonly isBot: boolean;
  /** True when the message was sent by this Switchboard bot itself. */
  readonly isSelf: boolean;
}

/** A platform event an adapter has turned into a message for the pipeline. */
export interface InboundMessage {
  /** The platform's message id, unique within the platform (dedupe and reply target). */
  readonly id: string;
  /**
   * The conversation this message belongs to as the platform sees it. A reply to a bot message
   * outside a thread may be moved by the resolve stage to the conversation of that bot message.
   */
  readonly conversation: ConversationRef;
  readonly author: Author;
  readonly text: string;
  /** A direct message: always answered, no mention needed. */
  readonly isDirect: boolean;
  /** The bot was mentioned (by id, name or pill) in this message. */
  readonly mentionsBot: boolean;
  /** Platform id of the message this one replies to, if any. */
  readonly replyTo?: string;
  /** An edit of an earlier message: never answered as a new question. */
  readonly isEdit: boolean;
  /** Epoch ms at which the platform says the message was sent. */
  readonly sentAt: number;
  /**
   * The message came end-to-end encrypted (a Matrix room with encryption on); everything the bot
   * posts into its conversation is encrypted too. `/status` says so.
   */
  readonly encrypted?: boolean;
  /** Files sent with the message (images, documents, voice notes), not downloaded yet. */
  readonly attachments?: readonly InboundAttachment[];
  /** The platform's event, for adapters' own use when delivering. Never read by core. */
  readonly raw?: unknown;
}

/** One piece of text to post into a conversation. */
export interface OutboundMessage {
  readonly conversation: ConversationRef;
  /** Markdown. Already chunked to the adapter's `maxMessageLength`. */
  readonly text: string;
  /** Platform id of the message this answers (the origin of the request). */
  readonly replyTo?: string;
  /** Who the answer is for; adapters that answer privately (e.g. ephemeral) may use it. */
  readonly recipientId?: string;
  /** The agent that wrote it, when an agent did; adapters may show it. */
  readonly agent?: string;
  /**
   * How that agent shows itself (its `display` in the team config), filled in by delivery. Adapters
   * that can post under a per-message name and icon do; others may name the agent in the text.
   */
  readonly identity?: AgentIdentity;
  /**
   * The same for every attempt to post this chunk (work item + delivery + chunk). Adapters make the
   * post idempotent with it where the platform allows (Matrix transaction id, Discord nonce) and
   * mark the post with it where it does not (Slack message metadata), for `findPosted`.
   */
  readonly idempotencyKey?: string;
  /** This message asks for approval: the adapter adds its Approve / Deny controls. */
  readonly approval?: ApprovalPrompt;
}

/** What an adapter reports after posting: the platform id of the posted message. */
export interface PostedMessage {
  readonly id: string;
  readonly conversation: ConversationRef;
  /** The agent identity the message shows (set by delivery): edits keep showing it. */
  readonly identity?: AgentIdentity;
}
