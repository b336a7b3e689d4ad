/**
 * The state of the homeserver stand-in: users, rooms, one ordered event stream, and the shapes of
 * `/sync` and `/messages` built from it the way Synapse builds them (tokens are stream positions
 * `s<n>`; a timeline longer than the filter's limit is cut to its newest events and marked
 * `limited` with a `prev_batch` to paginate from).
 */
export interface RoomEvent {
  readonly event_id: string;
  readonly type: string;
  readonly sender: string;
  readonly room_id: string;
  readonly origin_server_ts: number;
  readonly content: Record<string, unknown>;
  readonly state_key?: string;
}

export interface StoredEvent {
  readonly pos: number;
  readonly event: RoomEvent;
}

export type Membership = "join" | "invite" | "leave";

export interface Room {
  readonly id: string;
  readonly members: Map<string, { membership: Membership; pos: number }>;
  readonly events: StoredEvent[];
  encrypted: boolean;
  /** From the latest `m.room.name` state event. */
  name?: string;
}

export const SERVER_NAME = "hs.test";

export function parseToken(token: string | null | undefined): number | null {
  if (!token) return null;
  const match = /^s(\d+)$/.exec(token);
  if (!match) throw new Error(`bad token ${token}`);
  return Number(match[1]);
}

export class HomeserverState {
  readonly rooms = new Map<string, Room>();
  readonly displayNames = new Map<string, string>();
  readonly accountData = new Map<string, Map<string, unknown>>();
  readonly #wakers = new Set<() => void>();
  #pos = 0;
  #ids = 0;

  get position(): number {
    return this.#pos;
  }

  createRoom(options: {
    members: readonly string[];
    encrypted?: boolean;
    creator?: string;
    name?: string;
  }): string {
    const id = `!room${++this.#ids}:${SERVER_NAME}`;
    const room: Room = { id, members: new Map(), events: [], encrypted: options.encrypted ?? false };
    this.rooms.set(id, room);
    const creator = options.creator ?? options.members[0] ?? `@admin:${SERVER_NAME}`;
    this.append(id, { type: "m.room.create", sender: creator, state_key: "", content: { creator } });
    for (const member of options.members) this.setMembership(id, member, "join", member);
    if (options.name !== undefined) this.nameRoom(id, options.name, creator);
    if (room.encrypted) {
      this.append(id, {
        type: "m.room.encryption",
        sender: creator,
        state_key: "",
        content: { algorithm: "m.megolm.v1.aes-sha2" },
      });
    }
    return id;
  }

  /** Someone sets the room's name (`m.room.name`). */
  nameRoom(roomId: string, name: string, sender: string): void {
    this.room(roomId).name = name;
    this.append(roomId, { type: "m.room.name", sender, state_key: "", content: { name } });
  }

  /** Marks rooms as direct chats in the user's `m.direct` account data, as clients do. */
  markDirect(userId: string, withUser: string, roomId: string): void {
    const data = this.accountData.get(userId) ?? new Map<string, unknown>();
    const direct = (data.get("m.direct") ?? {}) as Record<string, string[]>;
    data.set("m.direct", { ...direct, [withUser]: [...(direct[withUser] ?? []), roomId] });
    this.accountData.set(userId, data);
  }

  room(roomId: string): Room {
    const room = this.rooms.get(roomId);
    if (!room)
      throw Object.assign(new Error(`unknown room ${roomId}`), { status: 404, errcode: "M_NOT_FOUND" });
    return room;
  }

  append(roomId: string, event: Omit<RoomEvent, "event_id" | "room_id" | "origin_server_ts">): StoredEvent {
    const room = this.room(roomId);
    const stored: StoredEvent = {
      pos: ++this.#pos,
      event: {
        event_id: `$ev${this.#pos}_${(++this.#ids).toString(36)}`,
        room_id: roomId,
        origin_server_ts: Date.now(),
        ...event,
      },
    };
    room.events.push(stored);
    this.#wake();
    return stored;
  }

  /** The same event again at a new stream position, as a client re-syncing from an older token sees it. */
  redeliver(roomId: string, eventId: string): void {
    const room = this.room(roomId);
    const original = room.events.find((stored) => stored.event.event_id === eventId);
    if (!original) throw new Error(`no event ${eventId} in ${roomId}`);
    room.events.push({ pos: ++this.#pos, event: original.event });
    this.#wake();
  }

  setMembership(
    roomId: string,
    userId: string,
    membership: Membership,
    sender: string,
    extra: Record<string, unknown> = {},
  ): StoredEvent {
    const stored = this.append(roomId, {
      type: "m.room.member",
      sender,
      state_key: userId,
      content: { membership, ...extra },
    });
    this.room(roomId).members.set(userId, { membership, pos: stored.pos });
    return stored;
  }

  joinedRooms(userId: string): string[] {
    return [...this.rooms.values()]
      .filter((room) => room.members.get(userId)?.membership === "join")
      .map((room) => room.id);
  }

  /** Resolves on the next change, or after `ms`. */
  changed(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#wakers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#wakers.add(done);
    });
  }

  #wake(): void {
    for (const wake of [...this.#wakers]) wake();
  }

  buildSync(
    userId: string,
    since: number | null,
    timelineLimit: number,
  ): { response: Record<string, unknown>; empty: boolean } {
    const join: Record<string, unknown> = {};
    const invite: Record<string, unknown> = {};
    const leave: Record<string, unknown> = {};
    const after = since ?? 0;
    for (const room of this.rooms.values()) {
      const member = room.members.get(userId);
      if (!member) continue;
      if (member.membership === "join") {
        const newlyJoined = since === null || member.pos > after;
        const candidates = newlyJoined ? room.events : room.events.filter((stored) => stored.pos > after);
        if (candidates.length === 0) continue;
        const shown = candidates.slice(-timelineLimit);
        join[room.id] = {
          timeline: {
            events: shown.map((stored) => stored.event),
            limited: shown.length < candidates.length,
            prev_batch: `s${(shown[0]?.pos ?? 1) - 1}`,
          },
          state: { events: [] },
          account_data: { events: [] },
          ephemeral: { events: [] },
        };
      } else if (member.pos > after && member.membership === "invite") {
        const inviteEvent = room.events.find((stored) => stored.pos === member.pos)?.event;
        // Stripped state as Synapse sends it by default: the room's create and encryption events.
        const stripped = room.events
          .map((stored) => stored.event)
          .filter((event) => event.type === "m.room.create" || event.type === "m.room.encryption")
          .map(({ type, state_key, sender, content }) => ({ type, state_key, sender, content }));
        invite[room.id] = {
          invite_state: {
            events: [...stripped, ...(inviteEvent ? [{ ...inviteEvent, unsigned: { age: 0 } }] : [])],
          },
        };
      } else if (member.pos > after && member.membership === "leave") {
        const leaveEvent = room.events.find((stored) => stored.pos === member.pos)?.event;
        leave[room.id] = { timeline: { events: leaveEvent ? [leaveEvent] : [] } };
      }
    }
    const empty = Object.keys(join).length + Object.keys(invite).length + Object.keys(leave).length === 0;
    return { response: { next_batch: `s${this.#pos}`, rooms: { join, invite, leave } }, empty };
  }

  /** `/messages` backwards from `from` (inclusive) down to `to` (exclusive), newest first. */
  messagesBackwards(roomId: string, from: number, to: number | null, limit: number): Record<string, unknown> {
    const older = this.room(roomId)
      .events.filter((stored) => stored.pos <= from && (to === null || stored.pos > to))
      .reverse();
    const chunk = older.slice(0, limit);
    const last = chunk.at(-1);
    return {
      chunk: chunk.map((stored) => stored.event),
      start: `s${from}`,
      ...(older.length > limit && last ? { end: `s${last.pos - 1}` } : {}),
    };
  }
}
