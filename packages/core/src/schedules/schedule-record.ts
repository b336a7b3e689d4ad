import type { ConversationRef } from "../conversation/ref.ts";
import { nextFireAfter, type Timing } from "./schedule-time.ts";

/**
 * active: fires at `nextFireAt`. paused: by a person, or because its place could no longer be
 * posted to; resumed from the next fire after now. done: a one-shot that fired (or was skipped).
 * cancelled: by a person, or removed from the configuration. done and cancelled never change again.
 */
export type ScheduleStatus = "active" | "paused" | "done" | "cancelled";

export const SCHEDULE_STATUSES: readonly ScheduleStatus[] = ["active", "paused", "done", "cancelled"];

export const isEnded = (status: ScheduleStatus) => status === "done" || status === "cancelled";

/** Where a schedule runs and posts. */
export interface ScheduleHome {
  /** The conversation whose history its runs read and extend (lock, queue: the fire's continuation). */
  readonly key: string;
  /** Where its posts go: the thread itself, or the channel / room / DM the thread is in (a new message there). */
  readonly post: ConversationRef;
  /** The message its posts answer, when they answer one (a thread-born reminder); absent: a new message. */
  readonly replyTo?: string;
}

/** A digest: its runs summarise the conversations in a place since the last fire. */
export interface DigestOf {
  /** A conversation-key prefix naming the place (`slack:T1:C2` — every thread of that channel). */
  readonly place: string;
}

/** A reminder or recurring run the bot starts itself in its home thread. */
export interface ScheduleRecord {
  /** `S-7KQ2MD` for schedules made in chat; the configured name for operators' schedules. */
  readonly id: string;
  readonly timing: Timing;
  /** IANA zone the timing is read in. */
  readonly timeZone: string;
  /** What the agent should do when it fires (the run's message). */
  readonly instructions: string;
  /** A short line people recognise in lists ("send the invoice"). */
  readonly title: string;
  readonly home: ScheduleHome;
  /** Who made it: may pause, resume and cancel it, and its runs are theirs (time zone, usage). */
  readonly ownerId: string;
  readonly source: "chat" | "config";
  readonly digest?: DigestOf;
  readonly status: ScheduleStatus;
  /** When it fires next (active), or would have (paused). */
  readonly nextFireAt?: number;
  /** The due time of the last fire. */
  readonly lastFireAt?: number;
  readonly fireCount: number;
  /** Fires missed while nothing ran and too late to catch up. */
  readonly skippedCount: number;
  readonly createdAt: number;
  readonly updatedAt: number;
  /** Who paused or cancelled it (a user id, `console`, `switchboard`), and why when it was not a person. */
  readonly changedBy?: string;
  readonly reason?: string;
}

/** One fire as the console lists it: when it was due, when it was queued, and what became of it. */
export interface FireEntry {
  readonly scheduleId: string;
  readonly dueAt: number;
  readonly firedAt: number;
  /** The due time of the fire before it (a digest summarises what happened since). */
  readonly previousDueAt?: number;
  /** Fires missed before this one and skipped (too late), when there were any. */
  readonly skipped?: number;
  readonly outcome?: FireOutcome;
  readonly requestId?: string;
  readonly runId?: string;
  /** When its post was delivered (or given up). */
  readonly finishedAt?: number;
  readonly error?: string;
}

/** posted: ran and posted. failed: the run failed; a sentence saying so was posted. undeliverable: nothing could be posted (the schedule is paused). dropped: cancelled or paused before it ran. */
export type FireOutcome = "posted" | "failed" | "undeliverable" | "dropped";

/** A fire is "late" in its thread when it comes this long after its time. */
export const LATE_AFTER_MS = 60_000;
/** Missed fires are counted up to this many (then "more than"). */
const MAX_COUNTED = 10_000;

/** What the firing side does with a due schedule: fire its latest due time, skip older ones, move on. */
export interface FirePlan {
  /** The due time to fire now (within the catch-up window), if any. */
  readonly fire?: number;
  /** Due times missed beyond the catch-up window: how many, the first and the last. */
  readonly skipped?: { readonly count: number; readonly first: number; readonly last: number };
  /** The record after the plan: next fire advanced, counts and status updated. */
  readonly record: ScheduleRecord;
}

/**
 * The fire decision, pure. Of the due times up to `now`, the latest fires when it is at most
 * `catchUpMs` old (a process down at fire time catches up when it starts); every older one, and the
 * latest too when it is older than that, is skipped. The record's next fire moves past `now`.
 */
export function planFire(record: ScheduleRecord, now: number, catchUpMs: number): FirePlan | undefined {
  const due = record.nextFireAt;
  if (record.status !== "active" || due === undefined || due > now) return undefined;
  const missed: number[] = [due];
  let next = nextFireAfter(record.timing, record.timeZone, due);
  while (next !== undefined && next <= now && missed.length < MAX_COUNTED) {
    missed.push(next);
    next = nextFireAfter(record.timing, record.timeZone, next);
  }
  // A schedule far behind (more than MAX_COUNTED fires): the rest of the gap is skipped uncounted.
  if (next !== undefined && next <= now) next = nextFireAfter(record.timing, record.timeZone, now);
  const latest = missed.at(-1) as number;
  const fire = now - latest <= catchUpMs ? latest : undefined;
  const skippedTimes = fire === undefined ? missed : missed.slice(0, -1);
  const skipped =
    skippedTimes.length > 0
      ? {
          count: skippedTimes.length,
          first: skippedTimes[0] as number,
          last: skippedTimes.at(-1) as number,
        }
      : undefined;
  const { nextFireAt: _previous, ...rest } = record;
  const advanced: ScheduleRecord = {
    ...rest,
    ...(next === undefined ? { status: "done" } : { nextFireAt: next }),
    ...(fire === undefined ? {} : { lastFireAt: fire, fireCount: record.fireCount + 1 }),
    skippedCount: record.skippedCount + skippedTimes.length,
    updatedAt: now,
  };
  return { ...(fire === undefined ? {} : { fire }), ...(skipped ? { skipped } : {}), record: advanced };
}

export type ScheduleAction = "pause" | "resume" | "cancel";

/** A change a person (or the system) asks for: the new record, or the sentence that refuses it. */
export type ChangeOutcome = { readonly record: ScheduleRecord } | { readonly refused: string };

/**
 * Pause, resume and cancel as one pure table. A resumed schedule fires next at its first time after
 * `now` (what it missed while paused is not caught up); a resumed one-shot whose time has passed
 * is done instead.
 */
export function changeSchedule(
  record: ScheduleRecord,
  action: ScheduleAction,
  by: string,
  now: number,
  reason?: string,
): ChangeOutcome {
  const { id } = record;
  if (record.status === "done") return { refused: `Schedule ${id} has already run for the last time.` };
  if (record.status === "cancelled") return { refused: `Schedule ${id} is cancelled.` };
  const changed = { changedBy: by, updatedAt: now, ...(reason ? { reason } : {}) };
  switch (action) {
    case "pause":
      if (record.status === "paused") return { refused: `Schedule ${id} is already paused.` };
      return { record: { ...withoutReason(record), status: "paused", ...changed } };
    case "cancel":
      return { record: { ...withoutReason(record), status: "cancelled", ...changed } };
    case "resume": {
      if (record.status !== "paused") return { refused: `Schedule ${id} is not paused.` };
      const { nextFireAt: _next, reason: _reason, changedBy: _by, ...rest } = record;
      const next =
        record.nextFireAt !== undefined && record.nextFireAt > now
          ? record.nextFireAt
          : nextFireAfter(record.timing, record.timeZone, now);
      if (next === undefined)
        return {
          refused: `Schedule ${id} was due ${record.timing.kind === "once" ? "once, at a time that has passed" : "no more"}; nothing is left to resume.`,
        };
      return { record: { ...rest, status: "active", nextFireAt: next, updatedAt: now } };
    }
  }
}

function withoutReason(record: ScheduleRecord): ScheduleRecord {
  const { reason: _reason, ...rest } = record;
  return rest;
}
