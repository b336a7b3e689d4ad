import type { SortedSetChange } from "../store/sorted-sets.ts";
import { nextDueAt, type RequestTimeouts } from "./request-due.ts";
import { isOpen, type RequestRecord } from "./request-record.ts";

/** Open requests by when the sweeper next owes them something (see `nextDueAt`). */
export const DUE_SET = "requests:due";
/** Closed requests by when they closed: what retention deletes, oldest first. */
export const CLOSED_SET = "requests:closed";
/** Open requests of one conversation by when they were opened: what a turn and /status read. */
export const openSetOf = (conversationKey: string) => `requests:open:${conversationKey}`;
/** Every kept request of one conversation, open or closed, by when it was opened (the console). */
export const keptSetOf = (conversationKey: string) => `requests:kept:${conversationKey}`;

/**
 * The index entries a request should have: in its conversation's open set and the due set while
 * open, in the closed set once closed. Pure, so the tracker writes only what changed.
 */
function entriesOf(request: RequestRecord, timeouts: RequestTimeouts): Map<string, number> {
  // The kept entry's score never changes: it is written once, with the request's first save.
  const kept: [string, number] = [keptSetOf(request.conversationKey), request.createdAt];
  return isOpen(request)
    ? new Map([
        kept,
        [openSetOf(request.conversationKey), request.createdAt],
        [DUE_SET, nextDueAt(request, timeouts)],
      ])
    : new Map([kept, [CLOSED_SET, request.updatedAt]]);
}

/** The changes that move `request`'s index entries from where `previous` had them; none when equal. */
export function indexChanges(
  request: RequestRecord,
  previous: RequestRecord | undefined,
  timeouts: RequestTimeouts,
): SortedSetChange[] {
  const wanted = entriesOf(request, timeouts);
  const had = previous ? entriesOf(previous, timeouts) : new Map<string, number>();
  const changes: SortedSetChange[] = [];
  for (const [set, score] of wanted) {
    if (had.get(set) !== score) changes.push({ set, member: request.id, score });
  }
  for (const set of had.keys()) {
    if (!wanted.has(set)) changes.push({ set, member: request.id, score: null });
  }
  return changes;
}
