import type { Logger } from "@switchboard/core/adapter";
import { asEvent, isRecord } from "../receive/matrix-event.ts";
import type { SyncBatch, Timeline } from "./sync-response.ts";

/** One page of `GET /rooms/{room}/messages?dir=b`: newest first. */
export interface MessagesPage {
  readonly chunk: readonly unknown[];
  readonly end?: string;
}

export type FetchMessages = (roomId: string, from: string, to: string) => Promise<MessagesPage>;

export function readMessagesPage(response: unknown): MessagesPage {
  const chunk = isRecord(response) && Array.isArray(response.chunk) ? response.chunk : [];
  const end = isRecord(response) && typeof response.end === "string" ? response.end : undefined;
  return end === undefined ? { chunk } : { chunk, end };
}

/** Back-filled events (newest first, as paginated) put in front of the timeline, oldest first, without repeats. */
export function mergeGap(
  timelineEvents: readonly unknown[],
  backfilledNewestFirst: readonly unknown[],
): unknown[] {
  const present = new Set(
    timelineEvents.map((event) => asEvent(event)?.event_id).filter((id) => id !== undefined),
  );
  const missing = [...backfilledNewestFirst].reverse().filter((event) => {
    const id = asEvent(event)?.event_id;
    if (id === undefined || present.has(id)) return false;
    present.add(id);
    return true;
  });
  return [...missing, ...timelineEvents];
}

export interface GapFillOptions {
  readonly fetchMessages: FetchMessages;
  /** The most events fetched per room and gap; a longer outage leaves the oldest unanswered (and says so). */
  readonly maxEvents: number;
  readonly logger: Logger;
}

/**
 * A `limited` timeline means the homeserver left events out between our last sync and this
 * batch (after downtime, or a burst). They are fetched from `/messages`, back from the timeline's
 * `prev_batch` to our last sync token, and put in front of the timeline, so the SDK hands them on
 * in order like any other event. Only rooms the bot was already in: a new room's older events are history.
 */
export async function fillTimelineGaps(
  batch: SyncBatch,
  since: string,
  joinedBefore: ReadonlySet<string>,
  options: GapFillOptions,
): Promise<void> {
  for (const [roomId, timeline] of batch.joinedTimelines) {
    if (!timeline.limited || timeline.prev_batch === undefined || !joinedBefore.has(roomId)) continue;
    await fillRoomGap(roomId, timeline, since, options);
  }
}

async function fillRoomGap(
  roomId: string,
  timeline: Timeline,
  since: string,
  options: GapFillOptions,
): Promise<void> {
  const backfilled: unknown[] = [];
  let from = timeline.prev_batch ?? since;
  let complete = false;
  while (backfilled.length < options.maxEvents) {
    const page = await options.fetchMessages(roomId, from, since);
    backfilled.push(...page.chunk);
    if (page.chunk.length === 0 || page.end === undefined || page.end === from) {
      complete = true;
      break;
    }
    from = page.end;
  }
  if (!complete) {
    options.logger.warn("Matrix gap larger than the back-fill limit; older messages in it are not answered", {
      roomId,
      fetched: backfilled.length,
    });
  }
  timeline.events = mergeGap(timeline.events, backfilled.slice(0, options.maxEvents));
  timeline.limited = false;
  options.logger.info("filled a Matrix timeline gap", { roomId, events: backfilled.length });
}
