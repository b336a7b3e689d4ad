import type { InboundMessage } from "@switchboard/core/adapter";
import { roomConversation, threadConversation } from "../conversation.ts";
import { type MatrixEvent, relationOf } from "./matrix-event.ts";
import { MEDIA_TYPES, mediaContent } from "./media-message.ts";
import { type BotIdentity, mentionsBot, withoutLeadingAddress, withoutReplyFallback } from "./mentions.ts";

export interface RoomFacts {
  readonly roomId: string;
  /** A direct-message room: one conversation, answered without a mention. */
  readonly isDirect: boolean;
  /** An end-to-end encrypted room (the bot reads it, so encryption is on). */
  readonly encrypted?: boolean;
}

export type MappedEvent =
  | { readonly kind: "message"; readonly message: InboundMessage; readonly threadRoot?: string }
  | { readonly kind: "skip"; readonly reason: string };

const TEXT_TYPES = new Set(["m.text", "m.notice", "m.emote"]);

/**
 * The one place that decides how a Matrix `m.room.message` event maps to a conversation:
 * a DM room is one conversation; in a group room a thread is keyed by its root, and a top-level
 * message is the root of the conversation it starts. Replies report `replyTo` so the engine can
 * continue the conversation of the bot message replied to. Facts only — no gating here.
 */
export function mapRoomMessage(event: MatrixEvent, room: RoomFacts, bot: BotIdentity): MappedEvent {
  if (event.type !== "m.room.message") return { kind: "skip", reason: `not a message (${event.type})` };
  const { content } = event;
  const msgtype = content.msgtype;
  if (typeof msgtype !== "string") return { kind: "skip", reason: "no msgtype (redacted?)" };
  const media = MEDIA_TYPES.has(msgtype) ? mediaContent(msgtype, content) : undefined;
  if (media?.kind === "skip") return media;
  if (!media && !TEXT_TYPES.has(msgtype)) return { kind: "skip", reason: `not text (${msgtype})` };
  if (!media && typeof content.body !== "string") return { kind: "skip", reason: "no body" };

  const relation = relationOf(content);
  const isEdit = relation.relType === "m.replace";
  const threadRoot = relation.relType === "m.thread" ? relation.eventId : undefined;
  const replyTo =
    relation.inReplyTo !== undefined && !relation.isFallingBack ? relation.inReplyTo : undefined;
  const conversation = room.isDirect
    ? roomConversation(room.roomId)
    : threadConversation(room.roomId, threadRoot ?? event.event_id);

  // An edit's `body` is `* new text` for old clients; the edited text itself is in m.new_content.
  const newContent = content["m.new_content"];
  const rawBody =
    isEdit &&
    newContent !== null &&
    typeof newContent === "object" &&
    "body" in newContent &&
    typeof newContent.body === "string"
      ? newContent.body
      : media
        ? media.caption
        : String(content.body);
  const body = relation.inReplyTo !== undefined ? withoutReplyFallback(rawBody) : rawBody;
  const isSelf = event.sender === bot.userId;

  const message: InboundMessage = {
    id: event.event_id,
    conversation,
    author: {
      id: event.sender,
      // m.notice is Matrix's convention for automated messages: bots must not answer each other.
      isBot: isSelf || msgtype === "m.notice",
      isSelf,
    },
    text: withoutLeadingAddress(body, bot),
    isDirect: room.isDirect,
    mentionsBot: mentionsBot(content, bot),
    ...(replyTo === undefined ? {} : { replyTo }),
    isEdit,
    sentAt: event.origin_server_ts,
    ...(room.encrypted ? { encrypted: true } : {}),
    ...(media ? { attachments: [media.attachment] } : {}),
    raw: event,
  };
  return threadRoot === undefined ? { kind: "message", message } : { kind: "message", message, threadRoot };
}
