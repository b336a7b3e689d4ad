import type { ApprovalDecider, Logger } from "@switchboard/core/adapter";
import type { MatrixClient } from "matrix-bot-sdk";
import { ReactionApprovals } from "./approvals/approval-reactions.ts";
import type { ResolvedMatrixConfig } from "./config.ts";
import type { EncryptionState } from "./connect/encryption.ts";
import type { KeyValue } from "./connect/key-value.ts";
import { MatrixMedia } from "./media/matrix-media.ts";
import type { RoomDirectory } from "./receive/room-directory.ts";
import { matrixRoomNames } from "./receive/room-names.ts";
import { describeRequestFailure } from "./sdk/request-failure.ts";
import { EventSender } from "./send/event-sender.ts";
import { type EncryptContent, MessagePoster } from "./send/message-poster.ts";
import { ReadReceipts } from "./send/read-receipts.ts";
import { RoomDisplayNames } from "./send/room-display-names.ts";
import { TypingIndicator } from "./send/typing.ts";

/**
 * Everything that delivers into Matrix rooms — posts and edits, approval prompts, typing, read
 * receipts, room names — and nothing that receives. Built alike for the syncing connection and
 * for a send-only worker.
 */
export interface MatrixSending {
  readonly poster: MessagePoster;
  readonly approvals: ReactionApprovals;
  readonly typing: TypingIndicator;
  /** Absent when `readReceipts` is off. */
  readonly receipts: ReadReceipts | undefined;
  /** A room's name, cached (for the operator console). */
  roomName(roomId: string): Promise<string | undefined>;
  /** Files from and to the homeserver's media repository. */
  readonly media: MatrixMedia;
  /** The bot's per-room display name (a team of one agent speaks under that agent's name). */
  readonly displayNames: RoomDisplayNames;
}

type SendingClient = Pick<
  MatrixClient,
  | "doRequest"
  | "getEvent"
  | "getRoomStateEvent"
  | "setTyping"
  | "uploadContent"
  | "homeserverUrl"
  | "accessToken"
>;

export interface SendingParts {
  readonly client: SendingClient;
  readonly rooms: RoomDirectory;
  readonly userId: string;
  readonly encryption: EncryptionState;
  /** Present when encryption is active. */
  readonly encrypt?: EncryptContent;
  /**
   * Approval prompts are remembered here by event id, so whichever process syncs the reactions
   * finds the prompt (the store is shared by every process of one deployment).
   */
  readonly kv: KeyValue | undefined;
  /** Decides ✅ / ❌ reactions; only the syncing process ever sees one. */
  readonly decider: () => ApprovalDecider | undefined;
  readonly logger: Logger;
}

type SendingConfig = Pick<ResolvedMatrixConfig, "replyMode" | "msgtype" | "readReceipts">;

export function buildSending(config: SendingConfig, parts: SendingParts): MatrixSending {
  const { client, rooms, userId, encryption, encrypt, kv, logger } = parts;
  const poster = new MessagePoster({
    sender: new EventSender({
      request: (method, path, query, body) => client.doRequest(method, path, query, body),
      logger,
    }),
    rooms,
    replyMode: config.replyMode,
    msgtype: config.msgtype,
    encryption,
    ...(encrypt ? { encrypt } : {}),
  });
  const approvals = new ReactionApprovals({
    poster,
    ...(kv ? { kv } : {}),
    botUserId: userId,
    decider: parts.decider,
    fetchEvent: (roomId, eventId) => client.getEvent(roomId, eventId),
    logger,
  });
  const typing = new TypingIndicator(
    async (roomId, active, timeoutMs) => {
      await client.setTyping(roomId, active, timeoutMs);
    },
    (error) =>
      logger.warn("renewing the Matrix typing indicator failed", {
        error: describeRequestFailure(error).message,
      }),
  );
  // Unthreaded: marks the answered message and everything before it read, in every thread.
  const receipts = config.readReceipts
    ? new ReadReceipts(
        async (roomId, eventId) => {
          await client.doRequest(
            "POST",
            `/_matrix/client/v3/rooms/${encodeURIComponent(roomId)}/receipt/m.read/${encodeURIComponent(eventId)}`,
            null,
            {},
          );
        },
        (error, roomId, eventId) =>
          logger.warn("could not send a Matrix read receipt", {
            roomId,
            eventId,
            error: describeRequestFailure(error).message,
          }),
      )
    : undefined;
  const roomName = matrixRoomNames(
    (roomId, type, stateKey) => client.getRoomStateEvent(roomId, type, stateKey),
    logger,
  );
  const media = new MatrixMedia(client, rooms, poster);
  const memberPath = (roomId: string) =>
    `/_matrix/client/v3/rooms/${encodeURIComponent(roomId)}/state/m.room.member/${encodeURIComponent(userId)}`;
  const displayNames = new RoomDisplayNames(
    {
      read: async (roomId) => (await client.doRequest("GET", memberPath(roomId))) as Record<string, unknown>,
      write: async (roomId, content) => {
        await client.doRequest("PUT", memberPath(roomId), null, content);
      },
    },
    kv,
    logger,
  );
  return { poster, approvals, typing, receipts, roomName, media, displayNames };
}

/** On shutdown: no room is left showing the bot typing. */
export async function clearTyping(sending: MatrixSending, logger: Logger): Promise<void> {
  await sending.typing.stopAll().catch((error: unknown) =>
    logger.warn("could not clear the Matrix typing indicator on shutdown", {
      error: describeRequestFailure(error).message,
    }),
  );
}
