import { describe, expect, it } from "vitest";
import { planFire, type ScheduleRecord } from "./schedule-record.ts";
import {
  canonicalTimeZone,
  describeTiming,
  firstFire,
  formatInZone,
  nextFireAfter,
  ScheduleTimeError,
  type Timing,
} from "./schedule-time.ts";

const BERLIN = "Europe/Berlin";
const NEW_YORK = "America/New_York";
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** The wall-clock time an instant shows in a zone: "2025-03-30 09:00". */
function local(instant: number | undefined, zone: string): string {
  if (instant === undefined) return "none";
  return new Date(instant).toLocaleString("sv-SE", { timeZone: zone }).slice(0, 16);
}

/** The next `count` fires after `from`, as wall-clock times in the zone. */
function fires(timing: Timing, zone: string, from: string, count: number): string[] {
  const found: string[] = [];
  let at = Date.parse(from);
  for (let index = 0; index < count; index++) {
    const next = nextFireAfter(timing, zone, at);
    if (next === undefined) break;
    found.push(local(next, zone));
    at = next;
  }
  return found;
}

const daily = (hhmm: string): Timing => {
  const [hour, minute] = hhmm.split(":");
  return { kind: "cron", cron: `${Number(minute)} ${Number(hour)} * * *` };
};

describe("daylight saving as a person expects", () => {
  it.each([
    // Spring forward: 02:00 → 03:00 on 30 March 2025 in Berlin, 9 March 2025 in New York.
    [BERLIN, "2025-03-28T12:00:00Z", ["2025-03-29 09:00", "2025-03-30 09:00", "2025-03-31 09:00"]],
    [NEW_YORK, "2025-03-07T20:00:00Z", ["2025-03-08 09:00", "2025-03-09 09:00", "2025-03-10 09:00"]],
    // Fall back: 03:00 → 02:00 on 26 October 2025 in Berlin, 2 November 2025 in New York.
    [BERLIN, "2025-10-24T12:00:00Z", ["2025-10-25 09:00", "2025-10-26 09:00", "2025-10-27 09:00"]],
    [NEW_YORK, "2025-10-31T20:00:00Z", ["2025-11-01 09:00", "2025-11-02 09:00", "2025-11-03 09:00"]],
  ])("a 09:00 daily schedule in %s stays at 09:00 local across the change", (zone, from, expected) => {
    expect(fires(daily("09:00"), zone, from, 3)).toEqual(expected);
  });

  it("keeps 24 hours between fires except across a change (23 h in spring, 25 h in autumn)", () => {
    const spring = [Date.parse("2025-03-29T08:00:00Z"), Date.parse("2025-03-30T07:00:00Z")];
    expect(nextFireAfter(daily("09:00"), BERLIN, (spring[0] as number) - 1)).toBe(spring[0]);
    expect(nextFireAfter(daily("09:00"), BERLIN, spring[0] as number)).toBe(spring[1]);
    expect((spring[1] as number) - (spring[0] as number)).toBe(23 * HOUR);
    const autumn = nextFireAfter(daily("09:00"), BERLIN, Date.parse("2025-10-25T07:00:00Z")) as number;
    expect(autumn - Date.parse("2025-10-25T07:00:00Z")).toBe(25 * HOUR);
  });

  it.each([
    [BERLIN, "2025-03-29T12:00:00Z", ["2025-03-30 03:00", "2025-03-31 02:30", "2025-04-01 02:30"]],
    [NEW_YORK, "2025-03-08T12:00:00Z", ["2025-03-09 03:00", "2025-03-10 02:30", "2025-03-11 02:30"]],
  ])("a daily 02:30 in %s fires once at 03:00 on the day 02:30 does not exist", (zone, from, expected) => {
    expect(fires(daily("02:30"), zone, from, 3)).toEqual(expected);
  });

  it.each([
    [BERLIN, "2025-10-25T12:00:00Z", Date.parse("2025-10-26T00:30:00Z")],
    [NEW_YORK, "2025-11-01T12:00:00Z", Date.parse("2025-11-02T05:30:00Z")],
  ])("a daily 01:30/02:30 that happens twice in %s fires once, at the first", (zone, from, first) => {
    const hhmm = zone === BERLIN ? "02:30" : "01:30";
    const after = Date.parse(from);
    const one = nextFireAfter(daily(hhmm), zone, after) as number;
    const two = nextFireAfter(daily(hhmm), zone, one) as number;
    expect(one).toBe(first);
    // The next fire is the next day's, not the repeated hour's.
    expect(two - one).toBe(25 * HOUR);
  });

  it("a one-time reminder at a local time that does not exist fires at the first valid minute after the gap", () => {
    const now = Date.parse("2025-03-01T00:00:00Z");
    const berlin = firstFire({ kind: "once", at: "2025-03-30T02:30" }, BERLIN, now, 0);
    expect(local(berlin, BERLIN)).toBe("2025-03-30 03:00");
    expect(berlin).toBe(Date.parse("2025-03-30T01:00:00Z"));
    const newYork = firstFire({ kind: "once", at: "2025-03-09T02:15" }, NEW_YORK, now, 0);
    expect(local(newYork, NEW_YORK)).toBe("2025-03-09 03:00");
  });

  it("a one-time reminder at a local time that happens twice fires at its first occurrence", () => {
    const now = Date.parse("2025-10-01T00:00:00Z");
    expect(firstFire({ kind: "once", at: "2025-10-26T02:30" }, BERLIN, now, 0)).toBe(
      Date.parse("2025-10-26T00:30:00Z"),
    );
    expect(firstFire({ kind: "once", at: "2025-11-02T01:30" }, NEW_YORK, now, 0)).toBe(
      Date.parse("2025-11-02T05:30:00Z"),
    );
  });

  it("a weekly Monday 08:00 in Berlin keeps 08:00 through both changes of 2025", () => {
    const weekly: Timing = { kind: "cron", cron: "0 8 * * 1" };
    const times = fires(weekly, BERLIN, "2025-03-20T00:00:00Z", 3);
    expect(times).toEqual(["2025-03-24 08:00", "2025-03-31 08:00", "2025-04-07 08:00"]);
    expect(fires(weekly, BERLIN, "2025-10-20T12:00:00Z", 2)).toEqual([
      "2025-10-27 08:00",
      "2025-11-03 08:00",
    ]);
  });
});

describe("calendar edges", () => {
  it("the 29th of February fires in leap years only", () => {
    expect(fires({ kind: "cron", cron: "0 9 29 2 *" }, BERLIN, "2025-01-01T00:00:00Z", 2)).toEqual([
      "2028-02-29 09:00",
      "2032-02-29 09:00",
    ]);
  });

  it("`L` is the last day of every month, February of a leap year included", () => {
    expect(fires({ kind: "cron", cron: "0 9 L * *" }, NEW_YORK, "2024-01-15T00:00:00Z", 4)).toEqual([
      "2024-01-31 09:00",
      "2024-02-29 09:00",
      "2024-03-31 09:00",
      "2024-04-30 09:00",
    ]);
  });

  it("the 31st fires only in months that have one", () => {
    expect(fires({ kind: "cron", cron: "0 9 31 * *" }, BERLIN, "2025-01-15T00:00:00Z", 4)).toEqual([
      "2025-01-31 09:00",
      "2025-03-31 09:00",
      "2025-05-31 09:00",
      "2025-07-31 09:00",
    ]);
  });

  it("a one-time reminder on a day that does not exist is refused with the reason", () => {
    const now = Date.parse("2025-01-01T00:00:00Z");
    expect(() => firstFire({ kind: "once", at: "2025-02-29T09:00" }, BERLIN, now, 0)).toThrow(
      "2025-02-29 is not a date: February 2025 has 28 days.",
    );
    expect(firstFire({ kind: "once", at: "2028-02-29T09:00" }, BERLIN, now, 0)).toBe(
      Date.parse("2028-02-29T08:00:00Z"),
    );
    expect(() => firstFire({ kind: "once", at: "2025-13-01T09:00" }, BERLIN, now, 0)).toThrow(
      "2025-13-01 is not a date: there is no month 13.",
    );
  });

  it("a year-end one-time reminder lands in the new year in its own zone", () => {
    const now = Date.parse("2025-12-30T00:00:00Z");
    const at = firstFire({ kind: "once", at: "2026-01-01T00:30" }, NEW_YORK, now, 0);
    expect(new Date(at).toISOString()).toBe("2026-01-01T05:30:00.000Z");
  });
});

describe("what is refused, with a sentence and an example", () => {
  const now = Date.parse("2025-03-10T08:00:00Z");

  it.each([
    [
      { kind: "once", at: "tomorrow at nine" },
      'I could not read "tomorrow at nine" as a date and time. Write it as year-month-day and 24-hour time, like "2025-03-10T09:00".',
    ],
    [
      { kind: "once", at: "2025-03-11T25:00" },
      "2025-03-11T25:00 is not a time of day; use 24-hour time from 00:00 to 23:59.",
    ],
    [{ kind: "cron", cron: "every monday" }, 'I could not read "every monday" as a cron expression'],
    [{ kind: "cron", cron: "0 25 * * *" }, "Invalid value for hour: 25"],
    [{ kind: "cron", cron: "0 0 9 * * 1" }, "It needs five fields"],
    [{ kind: "cron", cron: "0 9 30 2 *" }, '"0 9 30 2 *" never fires from now on'],
  ] as [Timing, string][])("%o", (timing, sentence) => {
    expect(() => firstFire(timing, BERLIN, now, 5 * MINUTE)).toThrow(sentence);
  });

  it("refuses a time in the past, saying what time it is now in the person's zone", () => {
    expect(() => firstFire({ kind: "once", at: "2025-03-10T08:30" }, BERLIN, now, 0)).toThrow(
      "Mon 10 Mar 2025, 08:30 (Europe/Berlin) is in the past (it is now Mon 10 Mar 2025, 09:00 (Europe/Berlin)). Give a time in the future.",
    );
  });

  it("refuses intervals under the minimum, including ones that are short only at times", () => {
    expect(() => firstFire({ kind: "cron", cron: "*/2 * * * *" }, BERLIN, now, 5 * MINUTE)).toThrow(
      "fires every 2 minutes at times; schedules may fire at most every 5 minutes.",
    );
    expect(() => firstFire({ kind: "cron", cron: "0,1 9 * * *" }, BERLIN, now, 5 * MINUTE)).toThrow(
      "fires every 1 minute at times",
    );
    expect(firstFire({ kind: "cron", cron: "*/5 * * * *" }, BERLIN, now, 5 * MINUTE)).toBe(now + 5 * MINUTE);
  });

  it("takes an instant with an offset as it is, whatever the zone", () => {
    expect(firstFire({ kind: "once", at: "2025-03-11T09:00:00+01:00" }, NEW_YORK, now, 0)).toBe(
      Date.parse("2025-03-11T08:00:00Z"),
    );
  });

  it("knows time zones by their IANA names, in any case, and refuses others", () => {
    expect(canonicalTimeZone("europe/berlin")).toBe(BERLIN);
    expect(() => canonicalTimeZone("Mars/Olympus")).toThrow(ScheduleTimeError);
    expect(() => canonicalTimeZone("Mars/Olympus")).toThrow('"Mars/Olympus" is not a time zone I know.');
  });
});

describe("words", () => {
  it("describes cron rhythms and one-time dates in the schedule's zone", () => {
    expect(describeTiming({ kind: "cron", cron: "0 8 * * 1" }, BERLIN)).toBe(
      "at 08:00, only on Monday (Europe/Berlin)",
    );
    const at = Date.parse("2025-03-11T08:00:00Z");
    expect(describeTiming({ kind: "once", at: "2025-03-11T09:00" }, BERLIN, at)).toBe(
      "once, on Tue 11 Mar 2025, 09:00 (Europe/Berlin)",
    );
    expect(formatInZone(at, NEW_YORK)).toBe("Tue 11 Mar 2025, 04:00 (America/New_York)");
  });
});

describe("the fire plan (catch-up and skipping)", () => {
  const base: ScheduleRecord = {
    id: "S-TEST01",
    timing: { kind: "cron", cron: "0 9 * * *" },
    timeZone: BERLIN,
    instructions: "say good morning",
    title: "good morning",
    home: { key: "slack:T1:C1:1.0", post: { platform: "slack", path: ["T1", "C1", "1.0"] } },
    ownerId: "U1",
    source: "chat",
    status: "active",
    nextFireAt: Date.parse("2025-03-10T08:00:00Z"),
    fireCount: 0,
    skippedCount: 0,
    createdAt: 0,
    updatedAt: 0,
  };
  const catchUp = 60 * MINUTE;

  it("fires on time and moves to the next day", () => {
    const plan = planFire(base, Date.parse("2025-03-10T08:00:00.300Z"), catchUp);
    expect(plan?.fire).toBe(base.nextFireAt);
    expect(plan?.skipped).toBeUndefined();
    expect(plan?.record).toMatchObject({ fireCount: 1, lastFireAt: base.nextFireAt, status: "active" });
    expect(local(plan?.record.nextFireAt, BERLIN)).toBe("2025-03-11 09:00");
  });

  it("is not due before its time, nor when paused", () => {
    expect(planFire(base, (base.nextFireAt as number) - 1, catchUp)).toBeUndefined();
    expect(planFire({ ...base, status: "paused" }, (base.nextFireAt as number) + 1, catchUp)).toBeUndefined();
  });

  it("a fire at most catchUpMinutes late still fires", () => {
    const plan = planFire(base, (base.nextFireAt as number) + 59 * MINUTE, catchUp);
    expect(plan?.fire).toBe(base.nextFireAt);
  });

  it("fires missed longer ago are skipped and counted; the latest within the window fires", () => {
    // Down from Monday 08:55 to Thursday 09:30: Mon, Tue, Wed missed; Thu's 09:00 is 30 minutes late.
    const plan = planFire(base, Date.parse("2025-03-13T08:30:00Z"), catchUp);
    expect(plan?.fire).toBe(Date.parse("2025-03-13T08:00:00Z"));
    expect(plan?.skipped).toEqual({
      count: 3,
      first: Date.parse("2025-03-10T08:00:00Z"),
      last: Date.parse("2025-03-12T08:00:00Z"),
    });
    expect(plan?.record).toMatchObject({ fireCount: 1, skippedCount: 3 });
    expect(local(plan?.record.nextFireAt, BERLIN)).toBe("2025-03-14 09:00");
  });

  it("when even the latest is too late, everything missed is skipped and nothing fires", () => {
    const plan = planFire(base, Date.parse("2025-03-11T10:30:00Z"), catchUp);
    expect(plan?.fire).toBeUndefined();
    expect(plan?.skipped?.count).toBe(2);
    expect(plan?.record.fireCount).toBe(0);
  });

  it("a one-time schedule is done after its fire, or after being skipped", () => {
    const once: ScheduleRecord = { ...base, timing: { kind: "once", at: "2025-03-10T09:00" } };
    const fired = planFire(once, (once.nextFireAt as number) + 1_000, catchUp);
    expect(fired?.fire).toBe(once.nextFireAt);
    expect(fired?.record.status).toBe("done");
    expect(fired?.record.nextFireAt).toBeUndefined();
    const missed = planFire(once, (once.nextFireAt as number) + 2 * HOUR, catchUp);
    expect(missed?.fire).toBeUndefined();
    expect(missed?.skipped?.count).toBe(1);
    expect(missed?.record.status).toBe("done");
  });
});
