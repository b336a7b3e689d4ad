import type { Logger } from "@switchboard/core/adapter";
import type { KeyValue } from "../connect/key-value.ts";
import { describeRequestFailure } from "../sdk/request-failure.ts";

export interface RoomMemberState {
  /** The bot's `m.room.member` content in the room. */
  read(roomId: string): Promise<Record<string, unknown>>;
  write(roomId: string, content: Record<string, unknown>): Promise<void>;
}

/**
 * The bot's display name per room (its `m.room.member` state), set to the one agent of a team that
 * has no other: Matrix shows a sender's per-room name on every message, so the agent's name needs
 * no prefix there. Set once per room and remembered in the store, so no process sets it again.
 */
export class RoomDisplayNames {
  readonly #member: RoomMemberState;
  readonly #kv: KeyValue | undefined;
  readonly #logger: Logger;
  readonly #known = new Map<string, string>();

  constructor(member: RoomMemberState, kv: KeyValue | undefined, logger: Logger) {
    this.#member = member;
    this.#kv = kv;
    this.#logger = logger;
  }

  /** True once the room shows the bot as `name`; false when it could not be set (the prefix is used then). */
  async ensure(roomId: string, name: string): Promise<boolean> {
    if (this.#known.get(roomId) === name) return true;
    const key = `room-display-name:${roomId}`;
    try {
      if ((await this.#kv?.get(key)) !== name) {
        const current = await this.#member.read(roomId);
        if (current.displayname !== name)
          await this.#member.write(roomId, { ...current, membership: "join", displayname: name });
        await this.#kv?.set(key, name);
      }
      this.#known.set(roomId, name);
      return true;
    } catch (error) {
      this.#logger.warn(
        "could not set the bot's display name in a Matrix room; naming the agent in the text",
        {
          roomId,
          error: describeRequestFailure(error).message,
        },
      );
      return false;
    }
  }
}
