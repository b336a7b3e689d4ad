import pLimit from "p-limit";
import { decodeConversationKey, encodeConversationKey } from "../conversation/ref.ts";
import type { Clock } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";
import type { PlaceForPosts } from "./schedule-maker.ts";
import { isEnded, type ScheduleRecord } from "./schedule-record.ts";
import type { ScheduleStore } from "./schedule-store.ts";
import { canonicalTimeZone, firstFire, nextFireAfter, ScheduleTimeError } from "./schedule-time.ts";
import { type DeclaredSchedule, timingOf } from "./schedules-config.ts";

/** Operators' schedules are theirs to space as they like; this only stops a typo firing every minute. */
const DECLARED_MIN_INTERVAL_MS = 60_000;
export const OPERATOR_OWNER = "operator";
const SYNCING_AT_ONCE = 8;

/**
 * Brings the store in line with the schedules declared in switchboard.yaml, at every start of every
 * process (idempotent, each schedule under its lock). A new one is made; a changed one takes its new
 * time and text from now on and is active again; an unchanged one keeps its state (a person's pause
 * stays), its fire count and its next fire — so a restart neither re-fires nor forgets one. One
 * that is no longer declared is cancelled.
 */
export async function syncDeclaredSchedules(options: {
  store: ScheduleStore;
  declared: readonly DeclaredSchedule[];
  defaultTimeZone: string;
  placeFor: PlaceForPosts;
  clock: Clock;
  logger: Logger;
  made: (record: ScheduleRecord) => void;
}): Promise<void> {
  const { store, declared, clock, logger } = options;
  const names = new Set(declared.map((entry) => entry.name));
  const limit = pLimit(SYNCING_AT_ONCE);
  const outcomes = await Promise.all(
    declared.map((entry) => limit(() => syncOne(declaredRecord(entry, options), options))),
  );
  let cancelled = 0;
  for (const record of await store.ofOwner("config")) {
    if (names.has(record.id)) continue;
    await store.update(record.id, async (current) => {
      if (isEnded(current.status)) return { result: undefined };
      cancelled += 1;
      return {
        record: {
          ...current,
          status: "cancelled",
          changedBy: "configuration",
          reason: "no longer in switchboard.yaml",
          updatedAt: clock.now(),
        },
        result: undefined,
      };
    });
  }
  const count = (outcome: SyncOutcome) => outcomes.filter((found) => found === outcome).length;
  if (count("made") + count("changed") + cancelled > 0)
    logger.info("declared schedules synced with switchboard.yaml", {
      made: count("made"),
      changed: count("changed"),
      unchanged: count("unchanged"),
      cancelled,
    });
}

type SyncOutcome = "made" | "changed" | "unchanged";

async function syncOne(
  wanted: ScheduleRecord,
  options: { store: ScheduleStore; clock: Clock; logger: Logger; made: (record: ScheduleRecord) => void },
): Promise<SyncOutcome> {
  const { store, clock, logger } = options;
  // The usual start: nothing changed, and every process of a cluster reads without taking the lock.
  const found = await store.get(wanted.id);
  if (found && sameDeclaration(found, wanted)) {
    if (found.status === "active") options.made(found);
    return "unchanged";
  }
  const saved = await store.update<{ record: ScheduleRecord; outcome: SyncOutcome }>(
    wanted.id,
    async (current) => {
      if (sameDeclaration(current, wanted))
        return { result: { record: current, outcome: "unchanged" as const } };
      const updated = rescheduled(
        { ...current, ...declarationOf(wanted), changedBy: "configuration" },
        clock.now(),
        logger,
      );
      return { record: updated, result: { record: updated, outcome: "changed" } };
    },
  );
  if (saved) {
    if (saved.record.status === "active") options.made(saved.record);
    return saved.outcome;
  }
  // New: processes starting together may each write it, with the same content.
  const made = rescheduled(wanted, clock.now(), logger);
  await store.save(made, undefined);
  if (made.status === "active") options.made(made);
  return "made";
}

function declaredRecord(
  entry: DeclaredSchedule,
  options: { defaultTimeZone: string; placeFor: PlaceForPosts; clock: Clock },
): ScheduleRecord {
  const timing = timingOf(entry);
  if (!timing)
    throw new Error(`schedule ${entry.name} declares no time (the configuration check should have said so)`);
  const post = decodeConversationKey(entry.conversation);
  const place = options.placeFor(post, undefined);
  const now = options.clock.now();
  return {
    id: entry.name,
    timing,
    timeZone: canonicalTimeZone(entry.timeZone ?? options.defaultTimeZone),
    instructions: entry.instructions.trim(),
    title: entry.title?.trim() || entry.name,
    home: { key: entry.conversation, post },
    ownerId: entry.owner ?? OPERATOR_OWNER,
    source: "config",
    ...(entry.digest === false
      ? {}
      : { digest: { place: entry.digest === true ? encodeConversationKey(place.channel) : entry.digest } }),
    status: "active",
    fireCount: 0,
    skippedCount: 0,
    createdAt: now,
    updatedAt: now,
  };
}

/** The fields the configuration decides. */
function declarationOf(record: ScheduleRecord) {
  return {
    timing: record.timing,
    timeZone: record.timeZone,
    instructions: record.instructions,
    title: record.title,
    home: record.home,
    ownerId: record.ownerId,
    ...(record.digest ? { digest: record.digest } : {}),
  };
}

function sameDeclaration(current: ScheduleRecord, wanted: ScheduleRecord): boolean {
  const currentDeclaration = { ...declarationOf(current), digest: current.digest };
  const wantedDeclaration = { ...declarationOf(wanted), digest: wanted.digest };
  return (
    current.status !== "cancelled" && JSON.stringify(currentDeclaration) === JSON.stringify(wantedDeclaration)
  );
}

/** Active from its first fire after now; a one-time schedule whose time has passed is done. */
function rescheduled(record: ScheduleRecord, now: number, logger: Logger): ScheduleRecord {
  const { nextFireAt: _next, reason: _reason, ...rest } = record;
  try {
    const next =
      record.timing.kind === "once"
        ? firstFire(record.timing, record.timeZone, now, DECLARED_MIN_INTERVAL_MS)
        : (nextFireAfter(record.timing, record.timeZone, now) ??
          firstFire(record.timing, record.timeZone, now, 0));
    return { ...rest, status: "active", nextFireAt: next, updatedAt: now };
  } catch (error) {
    if (!(error instanceof ScheduleTimeError)) throw error;
    logger.warn("declared schedule has nothing left to fire", {
      scheduleId: record.id,
      reason: error.message,
    });
    return { ...rest, status: "done", reason: error.message, updatedAt: now };
  }
}
