import type { Logger } from "@switchboard/core/adapter";
import { LRUCache } from "lru-cache";
import type { MatrixClient } from "matrix-bot-sdk";
import { describeRequestFailure } from "../sdk/request-failure.ts";
import { isRecord, type MatrixEvent, relationOf } from "./matrix-event.ts";

type DirectoryClient = Pick<MatrixClient, "getJoinedRoomMembers" | "getRoomStateEvent" | "getEvent"> & {
  readonly dms: Pick<MatrixClient["dms"], "isDm">;
};

const REMEMBERED_THREADS = 5_000;

export type DirectRoomRule = "marked" | "marked-or-two-members";

export interface RoomDirectoryOptions {
  /**
   * How long "this room is not encrypted" is believed without seeing the room's timeline (a
   * send-only worker sees none); unset: for good, as `observe` keeps it current. A room never
   * turns encryption off, so "encrypted" is kept for good either way.
   */
  readonly recheckUnencryptedMs?: number;
  readonly now?: () => number;
}

/**
 * What the adapter needs to know about rooms, asked of the homeserver once and kept up to date from
 * the events that change it. Only presentation and safety facts live here; where conversations
 * continue is decided by the engine from the store.
 */
export class RoomDirectory {
  readonly #client: DirectoryClient;
  readonly #logger: Logger;
  readonly #rule: DirectRoomRule;
  /** Fallback rule: the decision made at first sight, kept while members come and go. */
  readonly #twoMemberRooms = new Map<string, boolean>();
  /** Whether a room is encrypted, and when that was learnt. */
  readonly #encrypted = new Map<string, { readonly encrypted: boolean; readonly at: number }>();
  readonly #recheckUnencryptedMs: number;
  readonly #now: () => number;
  /** event id → thread root ("" for none), for placing answers; refetched when forgotten. */
  readonly #threads = new LRUCache<string, string>({ max: REMEMBERED_THREADS });

  constructor(
    client: DirectoryClient,
    logger: Logger,
    rule: DirectRoomRule = "marked",
    options: RoomDirectoryOptions = {},
  ) {
    this.#client = client;
    this.#logger = logger;
    this.#rule = rule;
    this.#recheckUnencryptedMs = options.recheckUnencryptedMs ?? Number.POSITIVE_INFINITY;
    this.#now = options.now ?? Date.now;
  }

  /**
   * A direct chat, as the Matrix spec defines it: the room is in the account's `m.direct` (the SDK
   * adds it when an invite carries `is_direct`). Member counts do not decide it — a two-person room
   * is not a DM, and a DM stays one when a third person joins — except under the configured
   * fallback, which decides once per room and keeps that decision.
   */
  async isDirect(roomId: string): Promise<boolean> {
    if (this.#client.dms.isDm(roomId)) return true;
    if (this.#rule === "marked") return false;
    let twoMembers = this.#twoMemberRooms.get(roomId);
    if (twoMembers === undefined) {
      twoMembers = (await this.#client.getJoinedRoomMembers(roomId)).length === 2;
      this.#twoMemberRooms.set(roomId, twoMembers);
    }
    return twoMembers;
  }

  async isEncrypted(roomId: string): Promise<boolean> {
    const known = this.#encrypted.get(roomId);
    if (known && (known.encrypted || this.#now() - known.at < this.#recheckUnencryptedMs))
      return known.encrypted;
    let encrypted: boolean;
    try {
      await this.#client.getRoomStateEvent(roomId, "m.room.encryption", "");
      encrypted = true;
    } catch (error) {
      if (describeRequestFailure(error).errcode !== "M_NOT_FOUND") throw error;
      encrypted = false;
    }
    this.#encrypted.set(roomId, { encrypted, at: this.#now() });
    return encrypted;
  }

  /** Keeps the facts current from a room's timeline. */
  observe(roomId: string, event: MatrixEvent): void {
    if (event.type === "m.room.encryption" && event.state_key === "")
      this.#encrypted.set(roomId, { encrypted: true, at: this.#now() });
  }

  rememberThread(eventId: string, threadRoot: string | undefined): void {
    this.#threads.set(eventId, threadRoot ?? "");
  }

  /** The thread an event was written in, if any; asks the homeserver for events not seen recently. */
  async threadOf(roomId: string, eventId: string): Promise<string | undefined> {
    let root = this.#threads.get(eventId);
    if (root === undefined) {
      try {
        const fetched: unknown = await this.#client.getEvent(roomId, eventId);
        const relation = relationOf(isRecord(fetched) && isRecord(fetched.content) ? fetched.content : {});
        root = relation.relType === "m.thread" ? (relation.eventId ?? "") : "";
      } catch (error) {
        this.#logger.warn("could not fetch a Matrix event to place an answer; answering outside any thread", {
          roomId,
          eventId,
          error: describeRequestFailure(error).message,
        });
        return undefined;
      }
      this.rememberThread(eventId, root);
    }
    return root === "" ? undefined : root;
  }

  forget(roomId: string): void {
    this.#twoMemberRooms.delete(roomId);
    this.#encrypted.delete(roomId);
  }
}
