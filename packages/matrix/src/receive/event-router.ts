import type { InboundSink, Logger } from "@switchboard/core/adapter";
import type { MatrixClient } from "matrix-bot-sdk";
import type { EncryptionState } from "../connect/encryption.ts";
import { decideInvite, type InvitePolicy } from "../connect/invite-policy.ts";
import { describeRequestFailure } from "../sdk/request-failure.ts";
import type { BatchFacts, BatchHandler } from "../sync/sync-loop.ts";
import {
  ENCRYPTED_ROOM_DECLINE_REASON,
  ENCRYPTED_ROOM_NOTICE,
  type EncryptedRoomPolicy,
} from "./encrypted-rooms.ts";
import { mapRoomMessage } from "./map-message.ts";
import { asEvent, type MatrixEvent } from "./matrix-event.ts";
import type { BotIdentity } from "./mentions.ts";
import type { RoomDirectory } from "./room-directory.ts";

export interface EventRouterOptions {
  readonly client: Pick<MatrixClient, "joinRoom" | "leaveRoom" | "sendMessage">;
  readonly bot: BotIdentity;
  readonly rooms: RoomDirectory;
  readonly invites: InvitePolicy;
  readonly encryption: EncryptionState;
  /** Invited to an encrypted room while E2EE is not active: join and say so, or decline. */
  readonly encryptedRooms: EncryptedRoomPolicy;
  readonly sink: InboundSink;
  readonly logger: Logger;
  /** A reaction someone added (✅ / ❌ on an approval prompt decide it). */
  readonly onReaction?: (roomId: string, event: MatrixEvent) => Promise<void>;
}

/**
 * Turns what the SDK extracts from a sync batch into engine input and room actions: messages go to
 * the sink (awaited, so the batch's token is only stored after the engine has them), invites are
 * joined or declined, encrypted events we cannot read are logged and skipped — never answered.
 */
export class EventRouter implements BatchHandler {
  readonly #options: EventRouterOptions;
  #historical: ReadonlySet<string> = new Set();
  #encryptedInvites: ReadonlySet<string> = new Set();
  readonly #warnedEncryptedRooms = new Set<string>();

  constructor(options: EventRouterOptions) {
    this.#options = options;
  }

  beginBatch(facts: BatchFacts): void {
    this.#historical = facts.historical;
    this.#encryptedInvites = facts.encryptedInvites;
  }

  async handle(eventName: string, payload: readonly unknown[]): Promise<void> {
    const [roomId, raw] = payload;
    if (typeof roomId !== "string") return;
    const event = asEvent(raw);
    switch (eventName) {
      case "room.invite":
        if (event) await this.#onInvite(roomId, event);
        return;
      case "room.message":
        if (event) await this.#onMessage(roomId, event);
        return;
      case "room.event":
        if (event) await this.#onRoomEvent(roomId, event);
        return;
      case "room.failed_decryption":
        this.#options.logger.warn("could not decrypt a Matrix message; it is not answered", {
          roomId,
          eventId: event?.event_id,
          error: payload[2],
        });
        return;
      case "room.leave":
        this.#options.rooms.forget(roomId);
        this.#options.logger.info("left Matrix room", { roomId });
        return;
    }
  }

  async #onInvite(roomId: string, invite: MatrixEvent): Promise<void> {
    const { client, invites, logger } = this.#options;
    const decision = decideInvite(invite.sender, invites);
    try {
      if (decision.accept && this.#unreadable(roomId)) {
        await this.#onUnreadableInvite(roomId, invite);
      } else if (decision.accept) {
        await client.joinRoom(roomId);
        logger.info("joined Matrix room on invite", { roomId, inviter: invite.sender, why: decision.reason });
      } else {
        await client.leaveRoom(roomId, "This bot does not accept invites from you.");
        logger.info("declined Matrix invite", { roomId, inviter: invite.sender, why: decision.reason });
      }
    } catch (error) {
      // Not retried with the batch: a room that cannot be joined now must not hold up every other message.
      logger.error(
        `could not ${decision.accept ? "join" : "decline"} Matrix room on invite; invite the bot again`,
        {
          roomId,
          inviter: invite.sender,
          error: describeRequestFailure(error).message,
        },
      );
    }
  }

  /** An encrypted room while end-to-end encryption is not running: nothing in it can be read. */
  #unreadable(roomId: string): boolean {
    return !this.#options.encryption.active && this.#encryptedInvites.has(roomId);
  }

  async #onUnreadableInvite(roomId: string, invite: MatrixEvent): Promise<void> {
    const { client, logger, encryptedRooms, encryption } = this.#options;
    const fields = {
      roomId,
      inviter: invite.sender,
      reason: encryption.active ? undefined : encryption.reason,
    };
    if (encryptedRooms === "decline") {
      await client.leaveRoom(roomId, ENCRYPTED_ROOM_DECLINE_REASON);
      logger.info(
        "declined an invite to an encrypted Matrix room (end-to-end encryption is not active)",
        fields,
      );
      return;
    }
    await client.joinRoom(roomId);
    // Plain on purpose: the members' clients show it even though the room expects encryption.
    await client.sendMessage(roomId, { msgtype: "m.notice", body: ENCRYPTED_ROOM_NOTICE });
    this.#warnedEncryptedRooms.add(roomId);
    logger.warn("joined an encrypted Matrix room and explained that its messages cannot be read", fields);
  }

  async #onMessage(roomId: string, event: MatrixEvent): Promise<void> {
    const { bot, rooms, sink, logger, encryption } = this.#options;
    if (this.#historical.has(event.event_id)) return;
    if (!encryption.active && (await rooms.isEncrypted(roomId))) {
      // A plaintext message in an encrypted room: answering would post plaintext there.
      this.#warnEncrypted(roomId, event, encryption.reason);
      return;
    }
    const mapped = mapRoomMessage(event, { roomId, isDirect: await rooms.isDirect(roomId) }, bot);
    if (mapped.kind === "skip") {
      logger.debug("Matrix event not handed on", { roomId, eventId: event.event_id, reason: mapped.reason });
      return;
    }
    rooms.rememberThread(event.event_id, mapped.threadRoot);
    await sink(mapped.message);
  }

  async #onRoomEvent(roomId: string, event: MatrixEvent): Promise<void> {
    const { rooms, encryption, onReaction, logger } = this.#options;
    rooms.observe(roomId, event);
    if (event.type === "m.reaction" && onReaction && !this.#historical.has(event.event_id)) {
      // A failed decision must not hold up the batch; the person can react again or type /approve.
      await onReaction(roomId, event).catch((error: unknown) =>
        logger.error("could not act on a Matrix reaction", { roomId, eventId: event.event_id, error }),
      );
    }
    // With encryption active, the SDK hands on decrypted events and reports failures separately.
    if (event.type === "m.room.encrypted" && !encryption.active && !this.#historical.has(event.event_id)) {
      this.#warnEncrypted(roomId, event, encryption.reason);
    }
  }

  #warnEncrypted(roomId: string, event: MatrixEvent, reason: string): void {
    const fields = { roomId, eventId: event.event_id, sender: event.sender, reason };
    if (this.#warnedEncryptedRooms.has(roomId)) {
      this.#options.logger.debug("skipped a message in an encrypted Matrix room", fields);
      return;
    }
    this.#warnedEncryptedRooms.add(roomId);
    this.#options.logger.warn(
      "skipping messages in an encrypted Matrix room: end-to-end encryption is not active (see matrix.encryption)",
      fields,
    );
  }
}
