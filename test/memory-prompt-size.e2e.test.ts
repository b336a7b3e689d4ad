import { MemorySaver } from "@langchain/langgraph";
import { openStore } from "@switchboard/core";
import { describe, expect, it } from "vitest";
import {
  promptChars,
  scriptedMemoryModel,
  scriptedTeamModel,
  startMemoryHarness,
} from "./support/memory-harness.ts";

const MINUTE = 60_000;
const TURNS = 24;
const TURNS_PER_SESSION = 3;

/** Runs the same 24 turns; with `archive`, the conversation goes quiet for 31 minutes every 3 turns. */
async function promptSizes(archive: boolean): Promise<number[]> {
  const store = await openStore("memory://");
  let now = Date.UTC(2025, 0, 6, 9);
  const teamModel = scriptedTeamModel(() => "Here are this week's numbers, as asked.");
  const h = await startMemoryHarness({
    store,
    storeUrl: "memory://",
    checkpointer: new MemorySaver(),
    clock: { now: () => now },
    teamModel,
    memoryModel: scriptedMemoryModel(),
    config: { summariesInPrompt: 2, recentEntries: 4 },
  });
  for (let turn = 1; turn <= TURNS; turn++) {
    await h.say(`Question ${String(turn).padStart(2, "0")}: what are this week's numbers?`);
    await h.settle();
    if (archive && turn % TURNS_PER_SESSION === 0) {
      now += 31 * MINUTE;
      expect(await h.memory.sweeper.sweep()).toHaveLength(1);
    }
  }
  await h.stop();
  await store.close();
  expect(teamModel.callCount).toBe(TURNS);
  return teamModel.calls.map(promptChars);
}

describe("prompt size per model call", () => {
  it("stays flat once sessions are archived, and grows linearly without archiving", async () => {
    const growing = await promptSizes(false);
    const archived = await promptSizes(true);

    // Without archiving every call carries the whole conversation: the same growth per turn.
    const steps = growing.slice(1).map((size, index) => size - (growing[index] ?? 0));
    expect(new Set(steps).size).toBe(1);
    expect(steps[0]).toBeGreaterThan(0);

    // With archiving, once the prompt carries its full share of summaries (session 3 on), every
    // session's calls have exactly the same sizes: turn count no longer matters.
    const sessions = Array.from({ length: TURNS / TURNS_PER_SESSION }, (_, s) =>
      archived.slice(s * TURNS_PER_SESSION, (s + 1) * TURNS_PER_SESSION),
    );
    expect(new Set(sessions.slice(2).map((sizes) => sizes.join(","))).size).toBe(1);
    const ceiling = Math.max(...archived);
    expect(growing.at(-1)).toBeGreaterThan(2 * ceiling);
    console.info(
      `prompt characters per call, turns 1..${TURNS}\n  no archiving: ${growing.join(" ")}\n  archiving:    ${archived.join(" ")}`,
    );
  });
});
