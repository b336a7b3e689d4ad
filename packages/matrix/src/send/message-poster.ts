import type { OutboundMessage, PostedMessage } from "@switchboard/core";
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

  async post(message: OutboundMessage): Promise<PostedMessage> {
    const { sender, rooms, replyMode, msgtype, encryption, encrypt } = this.#options;
    const place = placeOf(message.conversation);
    const { roomId } = place;
    const replyToThread =
      message.replyTo !== undefined && needsReplyToThread(place, replyMode)
        ? await rooms.threadOf(roomId, message.replyTo)
        : undefined;
    const relation = relationFor(
      choosePlacement({
        place,
        replyMode,
        ...(message.replyTo === undefined ? {} : { replyTo: message.replyTo }),
        ...(replyToThread === undefined ? {} : { replyToThread }),
      }),
    );
    // An empty m.mentions tells clients this message mentions no one, whatever its text says.
    const relationField = relation === undefined ? {} : { "m.relates_to": relation };
    const fixed = { msgtype, "m.mentions": {}, ...relationField };
    const content = {
      msgtype,
      ...renderText(message.text, fixed),
      "m.mentions": {},
      ...relationField,
    };

    let id: string;
    if (await rooms.isEncrypted(roomId)) {
      if (!encryption.active || encrypt === undefined) {
        throw new EncryptedRoomError(
          roomId,
          encryption.active ? "no encryption function" : encryption.reason,
        );
      }
      id = await sender.send(roomId, "m.room.encrypted", await encrypt(roomId, "m.room.message", content));
    } else {
      id = await sender.send(roomId, "m.room.message", content);
    }
    return { id, conversation: message.conversation };
  }
}
