import { describe, expect, it } from "vitest";
import { describeTimeFrame, parseTimeFrame, TimeFrameError } from "./time-frame.ts";

// Wednesday 2026-11-25 15:30 UTC.
const NOW = Date.UTC(2026, 10, 25, 15, 30);
const day = (text: string) => Date.parse(`${text}T00:00:00Z`);

describe("parseTimeFrame", () => {
  it.each([
    ["today", day("2026-11-25"), NOW + 1],
    ["yesterday", day("2026-11-24"), day("2026-11-25")],
    ["this week", day("2026-11-23"), NOW + 1],
    ["Last  Week", day("2026-11-16"), day("2026-11-23")],
    ["this month", day("2026-11-01"), NOW + 1],
    ["last month", day("2026-10-01"), day("2026-11-01")],
    ["last 3 days", NOW - 3 * 86_400_000, NOW + 1],
    ["past 2 weeks", NOW - 14 * 86_400_000, NOW + 1],
    ["2026-03-14", day("2026-03-14"), day("2026-03-15")],
    ["2026-02", day("2026-02-01"), day("2026-03-01")],
    ["2026-03-01..2026-03-15", day("2026-03-01"), day("2026-03-16")],
    ["last month .. today", day("2026-10-01"), NOW + 1],
  ])("%s", (text, from, to) => {
    expect(parseTimeFrame(text, NOW)).toEqual({ from, to });
  });

  it("January's last month is December of the year before", () => {
    expect(parseTimeFrame("last month", Date.UTC(2026, 0, 10))).toEqual({
      from: day("2025-12-01"),
      to: day("2026-01-01"),
    });
  });

  it.each(["march", "soon", "2026-13", "2026-02-30", "2026-03-15..2026-03-01", "a..b..c", ""])(
    "refuses %j",
    (text) => {
      expect(() => parseTimeFrame(text, NOW)).toThrow(TimeFrameError);
    },
  );

  it("describes a frame by its first and last day", () => {
    expect(describeTimeFrame(parseTimeFrame("last week", NOW))).toBe("2026-11-16 – 2026-11-22");
    expect(describeTimeFrame(parseTimeFrame("2026-03-14", NOW))).toBe("2026-03-14");
  });
});
