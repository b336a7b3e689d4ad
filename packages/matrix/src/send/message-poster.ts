import type { OutboundMessage, PostedMessage } from "@switchboard/core/adapter";
import type { EncryptionState } from "../connect/encryption.ts";
import { placeOf } from "../conversation.ts";
import { EncryptedRoomError } from "../errors.ts";
import type { RoomDirectory } from "../receive/room-directory.ts";
import type { EventSender } from "./event-sender.ts";
import { choosePlacement, needsReplyToThread, type ReplyMode, relationFor } from "./placement.ts";
import { renderText } from "./render.ts";

export type EncryptContent = (
  roomId: string,
  type: string,
  content: Record<string, unknown>,
) => Promise<object>;

export interface MessagePosterOptions {
  readonly sender: EventSender;
  readonly rooms: RoomDirectory;
  readonly replyMode: ReplyMode;
  readonly msgtype: "m.notice" | "m.text";
  readonly encryption: EncryptionState;
  /** Present when encryption is active. */
  readonly encrypt?: EncryptContent;
}

/** One markdown chunk → one `m.room.message`, placed in the right thread, never pinging anyone. */
export class MessagePoster {
  readonly #options: MessagePosterOptions;

  constructor(options: MessagePosterOptions) {
    this.#options = options;
  }

  /** `extra`: content fields of our own (namespaced), e.g. the approval mark of a prompt. */
  async post(message: OutboundMessage, extra: Record<string, unknown> = {}): Promise<PostedMessage> {
    const { msgtype } = this.#options;
    const { roomId } = placeOf(message.conversation);
    const relation = await this.#relation(message);
    // An empty m.mentions tells clients this message mentions no one, whatever its text says.
    const relationField = relation === undefined ? {} : { "m.relates_to": relation };
    const fixed = { msgtype, "m.mentions": {}, ...relationField };
    const content = {
      msgtype,
      ...renderText(message.text, fixed),
      "m.mentions": {},
      ...relationField,
      ...extra,
    };

    const id = await this.#send(roomId, content, message.idempotencyKey);
    return { id, conversation: message.conversation };
  }

  /**
   * Posts a message whose content is already made (a file: `m.image`, `m.file`…), placed in the
   * conversation's thread like an answer, mentioning no one, encrypted where the room is.
   */
  async postContent(
    target: Pick<OutboundMessage, "conversation" | "replyTo">,
    content: Record<string, unknown>,
    idempotencyKey: string,
  ): Promise<PostedMessage> {
    const relation = await this.#relation(target);
    const id = await this.#send(
      placeOf(target.conversation).roomId,
      { ...content, "m.mentions": {}, ...(relation === undefined ? {} : { "m.relates_to": relation }) },
      idempotencyKey,
    );
    return { id, conversation: target.conversation };
  }

  /** Where a message goes: the thread relation (and reply) for the conversation's place. */
  async #relation(message: Pick<OutboundMessage, "conversation" | "replyTo">) {
    const { rooms, replyMode } = this.#options;
    const place = placeOf(message.conversation);
    const replyToThread =
      message.replyTo !== undefined && needsReplyToThread(place, replyMode)
        ? await rooms.threadOf(place.roomId, message.replyTo)
        : undefined;
    return relationFor(
      choosePlacement({
        place,
        replyMode,
        ...(message.replyTo === undefined ? {} : { replyTo: message.replyTo }),
        ...(replyToThread === undefined ? {} : { replyToThread }),
      }),
    );
  }

  /**
   * Replaces a posted message's text with an `m.replace` edit. The thread relation stays on the
   * original (an edit carries only the replace relation); clients that do not render edits show
   * the edit's own body, `* <new text>`, so the latest one they see is still the whole answer.
   */
  async edit(posted: PostedMessage, text: string, extra: Record<string, unknown> = {}): Promise<void> {
    const { msgtype } = this.#options;
    const { roomId } = placeOf(posted.conversation);
    const relation = { rel_type: "m.replace", event_id: posted.id };
    const fixed = { msgtype, "m.mentions": {}, "m.relates_to": relation };
    const newContent = {
      msgtype,
      ...renderText(text, { msgtype, "m.mentions": {}, ...extra }),
      "m.mentions": {},
      ...extra,
    };
    const fallback = renderText(`* ${text}`, { ...fixed, "m.new_content": newContent });
    await this.#send(roomId, {
      msgtype,
      ...fallback,
      "m.new_content": newContent,
      "m.mentions": {},
      "m.relates_to": relation,
    });
  }

  /** Adds a reaction (an `m.annotation`) to an event, encrypted where the room is. */
  async react(roomId: string, eventId: string, key: string, idempotencyKey: string): Promise<string> {
    const content = { "m.relates_to": { rel_type: "m.annotation", event_id: eventId, key } };
    return this.#send(roomId, content, idempotencyKey, "m.reaction");
  }

  async #send(
    roomId: string,
    content: Record<string, unknown>,
    idempotencyKey?: string,
    type = "m.room.message",
  ): Promise<string> {
    const { sender, rooms, encryption, encrypt } = this.#options;
    if (!(await rooms.isEncrypted(roomId))) return sender.send(roomId, type, content, idempotencyKey);
    if (!encryption.active || encrypt === undefined) {
      throw new EncryptedRoomError(roomId, encryption.active ? "no encryption function" : encryption.reason);
    }
    const encrypted = await encrypt(roomId, type, content);
    return sender.send(roomId, "m.room.encrypted", encrypted, idempotencyKey);
  }
}
