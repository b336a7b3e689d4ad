/**
 * The time maths of schedules, pure: when a schedule fires first, when it fires next, and how a
 * time reads in a person's zone. Cron expressions go through `croner`, chosen over `rrule` because
 * it evaluates in an IANA zone with no dependencies and handles daylight saving as a person
 * expects, the way Vixie cron does: a fixed-time job (one minute, one hour: "09:00 daily") keeps its
 * wall-clock time across a change; a time that does not exist that day (02:30 on the spring-forward
 * day) fires once at the first valid minute after the gap (03:00); a time that happens twice
 * (autumn) fires once, at its first occurrence. rrule's zone support shifts times across changes
 * and brings luxon; cron expressions are also what agents and operators already write.
 *
 * One-shot times (`2025-03-10T09:00` in a zone) are evaluated as a single-date cron expression with
 * seconds and year, so they follow the same rules as recurring ones. Descriptions of cron
 * expressions in words come from `cronstrue`.
 */
import { Cron } from "croner";
import cronstrue from "cronstrue";

export type Timing =
  /** A local date and time in the schedule's zone (`2025-03-10T09:00`), or an instant with an offset. */
  | { readonly kind: "once"; readonly at: string }
  /** Five fields: minute hour day-of-month month day-of-week, evaluated in the schedule's zone. */
  | { readonly kind: "cron"; readonly cron: string };

/** A time or expression that cannot be used; its message is the sentence the person reads. */
export class ScheduleTimeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ScheduleTimeError";
  }
}

export const ONCE_EXAMPLE = "2025-03-10T09:00";
export const CRON_EXAMPLE = '"0 8 * * 1" (every Monday at 08:00)';
/** How far ahead the fires of a cron expression are read to find its shortest interval. */
const INTERVAL_PROBE = 200;

/** The zone's canonical IANA name (`europe/berlin` → `Europe/Berlin`), or a sentence saying why not. */
export function canonicalTimeZone(zone: string): string {
  const name = zone.trim();
  if (name === "") throw new ScheduleTimeError(`No time zone given. Name one like "Europe/Berlin".`);
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    throw new ScheduleTimeError(
      `"${name}" is not a time zone I know. Use an IANA name like "Europe/Berlin" or "America/New_York".`,
    );
  }
}

/** Whether `zone` is an IANA time zone this runtime knows (any case). */
export function isTimeZone(zone: string): boolean {
  try {
    canonicalTimeZone(zone);
    return true;
  } catch {
    return false;
  }
}

interface LocalDateTime {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
}

const LOCAL_PATTERN = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?$/;
const OFFSET_PATTERN = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})$/i;

/** A local date-time, checked to be a real date; or an instant when the text carries an offset. */
function parseOnce(text: string): LocalDateTime | { readonly instant: number } {
  const trimmed = text.trim();
  if (OFFSET_PATTERN.test(trimmed)) {
    const instant = Date.parse(trimmed.replace(" ", "T"));
    if (!Number.isNaN(instant)) return { instant };
  }
  const match = LOCAL_PATTERN.exec(trimmed);
  if (!match)
    throw new ScheduleTimeError(
      `I could not read "${trimmed}" as a date and time. Write it as year-month-day and 24-hour time, like "${ONCE_EXAMPLE}".`,
    );
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map((part) => Number(part ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (month < 1 || month > 12)
    throw new ScheduleTimeError(`${trimmed.slice(0, 10)} is not a date: there is no month ${month}.`);
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day < 1 || day > daysInMonth)
    throw new ScheduleTimeError(
      `${trimmed.slice(0, 10)} is not a date: ${monthName(month)} ${year} has ${daysInMonth} days.`,
    );
  if (hour > 23 || minute > 59 || second > 59)
    throw new ScheduleTimeError(`${trimmed} is not a time of day; use 24-hour time from 00:00 to 23:59.`);
  return { year, month, day, hour, minute, second };
}

/**
 * The instant a local wall-clock time names in `zone`: a time inside a daylight-saving gap is the
 * first valid minute after it, a time that happens twice is its first occurrence (croner's rules).
 */
export function localTimeToInstant(local: LocalDateTime, zone: string): number {
  const { year, month, day, hour, minute, second } = local;
  const single = new Cron(`${second} ${minute} ${hour} ${day} ${month} * ${year}`, {
    timezone: zone,
    mode: "7-part",
  });
  // From a day before (zones are at most 14 h from UTC): the date's first match, whatever its offset.
  const found = single.nextRun(new Date(Date.UTC(year, month - 1, day) - 2 * 86_400_000));
  if (!found) throw new ScheduleTimeError(`${formatLocal(local)} does not exist in ${zone}.`);
  return found.getTime();
}

function cronOf(expression: string, zone: string): Cron {
  const trimmed = expression.trim();
  try {
    return new Cron(trimmed, { timezone: zone, mode: "5-part" });
  } catch (error) {
    const reason = error instanceof Error ? error.message.replace(/^Cron\w*: /, "") : String(error);
    throw new ScheduleTimeError(
      `I could not read "${trimmed}" as a cron expression (${reason}). It needs five fields — minute, hour, day of month, month, day of week — like ${CRON_EXAMPLE}.`,
    );
  }
}

/** Checks an expression and its zone without a clock (configuration): throws ScheduleTimeError. */
export function checkTiming(timing: Timing, zone: string): void {
  if (timing.kind === "cron") cronOf(timing.cron, zone);
  else {
    const parsed = parseOnce(timing.at);
    if (!("instant" in parsed)) localTimeToInstant(parsed, zone);
  }
}

/** The first fire after `now`; refuses times in the past, expressions that never fire, and fires closer than `minIntervalMs`. */
export function firstFire(timing: Timing, zone: string, now: number, minIntervalMs: number): number {
  if (timing.kind === "once") {
    const parsed = parseOnce(timing.at);
    const at = "instant" in parsed ? parsed.instant : localTimeToInstant(parsed, zone);
    if (at <= now)
      throw new ScheduleTimeError(
        `${formatInZone(at, zone)} is in the past (it is now ${formatInZone(now, zone)}). Give a time in the future.`,
      );
    return at;
  }
  const cron = cronOf(timing.cron, zone);
  const runs = cron.nextRuns(INTERVAL_PROBE, new Date(now)).map((date) => date.getTime());
  const first = runs[0];
  if (first === undefined)
    throw new ScheduleTimeError(`"${timing.cron.trim()}" never fires from now on. Check its date fields.`);
  for (let index = 1; index < runs.length; index++) {
    const gap = (runs[index] as number) - (runs[index - 1] as number);
    if (gap < minIntervalMs)
      throw new ScheduleTimeError(
        `"${timing.cron.trim()}" fires every ${Math.round(gap / 60_000)} minute${gap < 120_000 ? "" : "s"} at times; schedules may fire at most every ${Math.round(minIntervalMs / 60_000)} minutes.`,
      );
  }
  return first;
}

/** The fire after `after` (strictly later), or undefined when the schedule has no more. */
export function nextFireAfter(timing: Timing, zone: string, after: number): number | undefined {
  if (timing.kind === "once") return undefined;
  return cronOf(timing.cron, zone).nextRun(new Date(after))?.getTime();
}

/** The schedule's rhythm in words: "once, on Mon 10 Mar 2025, 09:00 (Europe/Berlin)" or "at 08:00, only on Monday (Europe/Berlin)". */
export function describeTiming(timing: Timing, zone: string, firstAt?: number): string {
  if (timing.kind === "once")
    return firstAt === undefined
      ? `once, at ${timing.at} (${zone})`
      : `once, on ${formatInZone(firstAt, zone)}`;
  let words: string;
  try {
    words = cronstrue.toString(timing.cron.trim(), { use24HourTimeFormat: true, verbose: false });
  } catch {
    words = `on "${timing.cron.trim()}"`;
  }
  return `${words.charAt(0).toLowerCase()}${words.slice(1)} (${zone})`;
}

const FORMATS = new Map<string, Intl.DateTimeFormat>();

/** "Mon 10 Mar 2025, 09:00 (Europe/Berlin)" — what people read; `withZone: false` leaves the zone out. */
export function formatInZone(instant: number, zone: string, withZone = true): string {
  let format = FORMATS.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-GB", {
      timeZone: zone,
      weekday: "short",
      day: "numeric",
      month: "short",
      year: "numeric",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
    });
    FORMATS.set(zone, format);
  }
  const parts = Object.fromEntries(format.formatToParts(instant).map((part) => [part.type, part.value]));
  const text = `${parts.weekday} ${parts.day} ${parts.month} ${parts.year}, ${parts.hour}:${parts.minute}`;
  return withZone ? `${text} (${zone})` : text;
}

function formatLocal(local: LocalDateTime): string {
  const pad = (value: number) => String(value).padStart(2, "0");
  return `${local.year}-${pad(local.month)}-${pad(local.day)} ${pad(local.hour)}:${pad(local.minute)}`;
}

function monthName(month: number): string {
  return new Date(Date.UTC(2000, month - 1, 1)).toLocaleString("en-GB", {
    month: "long",
    timeZone: "UTC",
  });
}
