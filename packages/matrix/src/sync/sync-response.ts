import { isRecord } from "../receive/matrix-event.ts";

/** The parts of a `/sync` response the loop reads or rewrites; the SDK reads the rest. */
export interface Timeline {
  events: unknown[];
  limited?: boolean;
  prev_batch?: string;
}

export interface SyncBatch {
  readonly nextBatch: string;
  /** Timelines of joined rooms, by room id (the objects inside the response: edits show up in it). */
  readonly joinedTimelines: ReadonlyMap<string, Timeline>;
  readonly joinedRooms: readonly string[];
  readonly leftRooms: readonly string[];
  /** Rooms the bot is invited to whose invite state says they are end-to-end encrypted. */
  readonly encryptedInvites: ReadonlySet<string>;
}

export class MalformedSyncError extends Error {
  constructor(detail: string) {
    super(`the homeserver sent a /sync response we cannot read: ${detail}`);
    this.name = "MalformedSyncError";
  }
}

function roomsOf(
  response: Record<string, unknown>,
  section: "join" | "leave" | "invite",
): Record<string, unknown> {
  const rooms = response.rooms;
  const inSection = isRecord(rooms) ? rooms[section] : undefined;
  return isRecord(inSection) ? inSection : {};
}

export function readSyncBatch(response: unknown): SyncBatch {
  if (!isRecord(response)) throw new MalformedSyncError("not a JSON object");
  if (typeof response.next_batch !== "string" || response.next_batch === "")
    throw new MalformedSyncError("no next_batch");
  const joined = roomsOf(response, "join");
  const joinedTimelines = new Map<string, Timeline>();
  for (const [roomId, room] of Object.entries(joined)) {
    const timeline = isRecord(room) ? room.timeline : undefined;
    if (isRecord(timeline) && Array.isArray(timeline.events))
      joinedTimelines.set(roomId, timeline as unknown as Timeline);
  }
  return {
    encryptedInvites: encryptedInvitesOf(roomsOf(response, "invite")),
    nextBatch: response.next_batch,
    joinedTimelines,
    joinedRooms: Object.keys(joined),
    leftRooms: Object.keys(roomsOf(response, "leave")),
  };
}

/** The stripped state of an invite carries `m.room.encryption` when the room is encrypted. */
function encryptedInvitesOf(invited: Record<string, unknown>): ReadonlySet<string> {
  const encrypted = new Set<string>();
  for (const [roomId, room] of Object.entries(invited)) {
    const state = isRecord(room) ? room.invite_state : undefined;
    const events = isRecord(state) && Array.isArray(state.events) ? state.events : [];
    if (events.some((event) => isRecord(event) && event.type === "m.room.encryption")) encrypted.add(roomId);
  }
  return encrypted;
}
