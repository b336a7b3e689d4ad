import { describe, expect, it } from "vitest";
import type { ThreadNote } from "../memory/thread-notes.ts";
import { RunStepsLog } from "../steps/run-steps-log.ts";
import { openStore } from "../store/open-store.ts";
import { fakeClock } from "../store/test-backends.ts";
import { catchUp } from "./catch-up.ts";

const HOUR = 3_600_000;
const PLACE = "slack:T1:C2";

/** Memory's notes per conversation, as `Memory.notesOf` gives them (oldest first, those after `since`). */
function notesFrom(notes: Record<string, ThreadNote[]>) {
  return async (key: string, since = 0) => (notes[key] ?? []).filter((note) => (note.at ?? since) >= since);
}

describe("catchUp", () => {
  it("in a thread memory knows, answers from its notes: sessions, then messages", async () => {
    const clock = fakeClock(Date.UTC(2026, 10, 25, 12));
    const text = await catchUp(
      {
        notesOf: notesFrom({
          [`${PLACE}:1.1`]: [
            { at: Date.UTC(2026, 10, 24, 9), kind: "session", text: "They agreed on a 40k budget." },
            { at: Date.UTC(2026, 10, 25, 9), kind: "asked", text: "Is the venue booked?" },
          ],
        }),
        clock,
      },
      `${PLACE}:1.1`,
      "U1",
    );
    expect(text).toBe(
      "**This thread so far**\n- 2026-11-24 09:00: They agreed on a 40k budget.\n- asked: Is the venue booked?",
    );
  });

  it("elsewhere in a place, lists the threads with messages since the asker's last one there, newest first", async () => {
    const store = await openStore("memory://");
    const clock = fakeClock(Date.UTC(2026, 10, 25, 8));
    const runs = new RunStepsLog(store, { retentionDays: 14, clock });
    const run = async (runId: string, key: string, userId: string) => {
      await runs.startRun({ runId, conversationKey: key, userId, trigger: "user_message" });
      await runs.finishRun(runId, "completed");
      await clock.advance(HOUR);
    };
    await run("old", `${PLACE}:1.1`, "U2");
    await run("mine", `${PLACE}:2.2`, "U1");
    const since = clock.now() - HOUR;
    await run("new-a", `${PLACE}:3.3`, "U2");
    await run("new-b", `${PLACE}:4.4`, "U3");
    await run("elsewhere", "slack:T1:C9:5.5", "U2");
    const sources = {
      notesOf: notesFrom({
        [`${PLACE}:1.1`]: [{ at: since - HOUR, kind: "asked", text: "an old question" }],
        [`${PLACE}:3.3`]: [{ at: since + HOUR, kind: "asked", text: "Who takes the ferry?" }],
        [`${PLACE}:4.4`]: [{ at: since + 2 * HOUR, kind: "asked", text: "Lunch at noon?" }],
      }),
      runs,
      clock,
    };
    const text = await catchUp(sources, `${PLACE}:9.9`, "U1");
    expect(text).toContain("**Threads here since your last message (2026-11-25 09:00 UTC)**");
    expect(text.indexOf("Lunch at noon?")).toBeLessThan(text.indexOf("Who takes the ferry?"));
    expect(text).not.toContain("an old question");
    expect(text).not.toContain("5.5");
    // Someone who has said everything there is to say: nothing new since.
    await run("latest", `${PLACE}:6.6`, "U4");
    expect(await catchUp({ ...sources, notesOf: notesFrom({}) }, `${PLACE}:9.9`, "U4")).toMatch(
      /^Nothing new in this place's threads since your last message/,
    );
    await store.close();
  });

  it("says what it cannot do without the run-steps log", async () => {
    const text = await catchUp({ notesOf: notesFrom({}), clock: fakeClock() }, `${PLACE}:9.9`, "U1");
    expect(text).toContain("without the run-steps log");
  });
});
