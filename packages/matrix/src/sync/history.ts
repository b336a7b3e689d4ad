import { asEvent } from "../receive/matrix-event.ts";
import type { SyncBatch } from "./sync-response.ts";

export interface HistoryFacts {
  /** The batch came from a sync without a token: everything in it happened before we started. */
  readonly initial: boolean;
  /** Rooms the bot was in before this batch. */
  readonly joinedBefore: ReadonlySet<string>;
  readonly botUserId: string;
}

function isOwnJoin(event: unknown, botUserId: string): boolean {
  const parsed = asEvent(event);
  return (
    parsed?.type === "m.room.member" && parsed.state_key === botUserId && parsed.content.membership === "join"
  );
}

/**
 * Events a batch shows that must never be answered: on a first start (no sync token) everything —
 * the homeserver is replaying the rooms' recent history; in a room the bot has just joined,
 * everything up to its own join — the history it can now see. When that join is not in the
 * timeline, nothing in the room can be told apart from history, so all of it is.
 */
export function historicalEventIds(batch: SyncBatch, facts: HistoryFacts): Set<string> {
  const historical = new Set<string>();
  for (const [roomId, timeline] of batch.joinedTimelines) {
    if (!facts.initial && facts.joinedBefore.has(roomId)) continue;
    const joinAt = facts.initial
      ? -1
      : timeline.events.findLastIndex((event) => isOwnJoin(event, facts.botUserId));
    const cutoff = facts.initial || joinAt === -1 ? timeline.events.length : joinAt + 1;
    for (const event of timeline.events.slice(0, cutoff)) {
      const id = asEvent(event)?.event_id;
      if (id !== undefined) historical.add(id);
    }
  }
  return historical;
}
