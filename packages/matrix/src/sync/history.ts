import { asEvent } from "../receive/matrix-event.ts";
import type { SyncBatch } from "./sync-response.ts";

export interface HistoryFacts {
  /** The batch came from a sync without a token: everything in it happened before we started. */
  readonly initial: boolean;
  /** Rooms the bot was in before this batch. */
  readonly joinedBefore: ReadonlySet<string>;
  readonly botUserId: string;
}

function isOwnMembership(event: unknown, botUserId: string, membership: "invite" | "join"): boolean {
  const parsed = asEvent(event);
  return (
    parsed?.type === "m.room.member" &&
    parsed.state_key === botUserId &&
    parsed.content.membership === membership
  );
}

/** Index of the last event that is history in a room the bot just joined; -1 when it cannot tell. */
function lastHistoricalIndex(events: readonly unknown[], botUserId: string): number {
  const join = events.findLastIndex((event) => isOwnMembership(event, botUserId, "join"));
  if (join === -1) return -1;
  const invite = events.slice(0, join).findLastIndex((event) => isOwnMembership(event, botUserId, "invite"));
  return invite === -1 ? join : invite;
}

/**
 * Events a batch shows that must never be answered: on a first start (no sync token) everything —
 * the homeserver is replaying the rooms' recent history; in a room the bot has just joined,
 * everything up to its invite — the history it can now see. Messages written between the invite
 * and the join were written to the bot (a new DM's first words) and are answered. When neither is in
 * the timeline, nothing in the room can be told apart from history, so all of it is.
 */
export function historicalEventIds(batch: SyncBatch, facts: HistoryFacts): Set<string> {
  const historical = new Set<string>();
  for (const [roomId, timeline] of batch.joinedTimelines) {
    if (!facts.initial && facts.joinedBefore.has(roomId)) continue;
    const lastHistorical = facts.initial ? -1 : lastHistoricalIndex(timeline.events, facts.botUserId);
    const cutoff = lastHistorical === -1 ? timeline.events.length : lastHistorical + 1;
    for (const event of timeline.events.slice(0, cutoff)) {
      const id = asEvent(event)?.event_id;
      if (id !== undefined) historical.add(id);
    }
  }
  return historical;
}
