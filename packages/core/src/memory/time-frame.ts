/**
 * The time frames `search_memory` takes: a few fixed phrases and ISO dates, in UTC. Hand-written,
 * not a natural-language date library: the model writes the argument, so a short, exact list it
 * is told about beats a parser's guesses (chrono-style libraries read "march" or "5" in ways a
 * search should not), and an unknown phrase is an error the model can correct.
 */

/** Sessions that overlap `[from, to)`, epoch ms. */
export interface TimeFrame {
  readonly from: number;
  readonly to: number;
}

export class TimeFrameError extends Error {
  constructor(text: string) {
    super(
      `unknown time frame ${JSON.stringify(text)}: use today, yesterday, this week, last week, this month, last month, ` +
        "last N days/weeks/months, an ISO date (2026-03-14), a month (2026-03), or two of those joined by '..'",
    );
    this.name = "TimeFrameError";
  }
}

const DAY = 86_400_000;

function startOfDay(at: number): number {
  return Math.floor(at / DAY) * DAY;
}

/** Monday 00:00 UTC of the week `at` is in. */
function startOfWeek(at: number): number {
  const day = startOfDay(at);
  const weekday = (new Date(day).getUTCDay() + 6) % 7;
  return day - weekday * DAY;
}

function startOfMonth(at: number, monthsBack = 0): number {
  const date = new Date(at);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() - monthsBack, 1);
}

/** `2026-03-14` → that day; `2026-03` → that month; otherwise undefined. */
function isoFrame(text: string): TimeFrame | undefined {
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (day) {
    const from = Date.UTC(Number(day[1]), Number(day[2]) - 1, Number(day[3]));
    // Date.UTC rolls 2026-02-30 over into March: only a date that reads back the same is one.
    return new Date(from).toISOString().startsWith(text) ? { from, to: from + DAY } : undefined;
  }
  const month = /^(\d{4})-(\d{2})$/.exec(text);
  if (month && Number(month[2]) >= 1 && Number(month[2]) <= 12) {
    const from = Date.UTC(Number(month[1]), Number(month[2]) - 1, 1);
    return { from, to: Date.UTC(Number(month[1]), Number(month[2]), 1) };
  }
  return undefined;
}

const UNIT_DAYS: Readonly<Record<string, number>> = { day: 1, week: 7, month: 30 };

function phraseFrame(text: string, now: number): TimeFrame | undefined {
  const today = startOfDay(now);
  switch (text) {
    case "today":
      return { from: today, to: now + 1 };
    case "yesterday":
      return { from: today - DAY, to: today };
    case "this week":
      return { from: startOfWeek(now), to: now + 1 };
    case "last week":
    case "past week": {
      const thisWeek = startOfWeek(now);
      return { from: thisWeek - 7 * DAY, to: thisWeek };
    }
    case "this month":
      return { from: startOfMonth(now), to: now + 1 };
    case "last month":
    case "past month":
      return { from: startOfMonth(now, 1), to: startOfMonth(now) };
  }
  const last = /^(?:last|past) (\d{1,3}) (day|week|month)s?$/.exec(text);
  if (last) {
    const days = Number(last[1]) * (UNIT_DAYS[last[2] ?? "day"] ?? 1);
    return { from: now - days * DAY, to: now + 1 };
  }
  return isoFrame(text);
}

/** A time frame as the model writes it, at `now`; throws `TimeFrameError` for anything else. */
export function parseTimeFrame(input: string, now: number): TimeFrame {
  const text = input.trim().toLowerCase().replace(/\s+/g, " ");
  const [start, end, ...rest] = text.split(/\s*\.\.\s*/);
  if (end !== undefined && rest.length === 0 && start) {
    const from = phraseFrame(start, now);
    const to = phraseFrame(end, now);
    if (from && to && from.from < to.to) return { from: from.from, to: to.to };
    throw new TimeFrameError(input);
  }
  const frame = phraseFrame(text, now);
  if (!frame) throw new TimeFrameError(input);
  return frame;
}

/** `2026-03-02 – 2026-03-08` (the last day shown is the one before `to`). */
export function describeTimeFrame(frame: TimeFrame): string {
  const day = (at: number) => new Date(at).toISOString().slice(0, 10);
  const first = day(frame.from);
  const last = day(Math.max(frame.from, frame.to - 1));
  return first === last ? first : `${first} – ${last}`;
}
