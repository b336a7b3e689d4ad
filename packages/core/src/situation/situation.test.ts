import { describe, expect, it } from "vitest";
import { situationLine } from "./situation.ts";

const at = (iso: string) => Date.parse(iso);

describe("situationLine", () => {
  it("says the asking person's local date and time, to the minute, and where they are", () => {
    expect(
      situationLine({
        now: at("2025-03-10T08:14:59Z"),
        timeZone: "Europe/Berlin",
        platform: "slack",
        place: { room: "#support" },
      }),
    ).toBe(
      "Current date and time: Monday, 10 March 2025, 09:14 (Europe/Berlin, GMT+01:00). You are on Slack, in #support.",
    );
  });

  it("is the same all minute long and moves with the next minute, in each zone on its own", () => {
    const line = (iso: string, timeZone: string) =>
      situationLine({ now: at(iso), timeZone, platform: "discord" });
    expect(line("2025-03-10T08:14:00Z", "Europe/Berlin")).toBe(
      line("2025-03-10T08:14:59.999Z", "Europe/Berlin"),
    );
    expect(line("2025-03-10T08:14:30Z", "Asia/Kolkata")).toContain("13:44 (Asia/Kolkata, GMT+05:30)");
    expect(line("2025-03-10T08:14:31Z", "Europe/Berlin")).toContain("09:14 (Europe/Berlin");
    expect(line("2025-03-10T08:15:00Z", "Europe/Berlin")).toContain("09:15 (Europe/Berlin");
    // Back in time (another process's clock, a test's): formatted again, not the newer minute.
    expect(line("2025-03-10T08:13:00Z", "Europe/Berlin")).toContain("09:13 (Europe/Berlin");
  });
});
