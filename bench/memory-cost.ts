import { atMost, type Figure } from "./support/figures.ts";
import { instantModel } from "./support/instant.ts";
import { memoryExtension, scriptedMemoryModel } from "./support/memory.ts";
import { round } from "./support/stats.ts";
import { openStack } from "./support/switchboard-stack.ts";
import { sqliteUrl, tempDir } from "./support/temp-dir.ts";
import { message200 } from "./support/text.ts";
import { promptTokens } from "./support/tokens.ts";

const CONVERSATIONS = 3;
const TURNS = 30;
/** A user's sitting: this many turns, then quiet for longer than memory.idleMinutes (archived). */
const TURNS_PER_SESSION = 10;
const MINUTE = 60_000;

/**
 * What memory costs beside the team, memory on with its defaults: 3 conversations of 30 turns in
 * sessions of 10, each session archived by the idle sweep (so archiving's calls count too). Every
 * prompt of the team's model and of the memory model (entries, context documents, summaries) is
 * counted; tokens ≈ characters / 4, as the other prompt figures.
 */
export async function measureMemoryCost(): Promise<Figure[]> {
  const dir = tempDir("memory-cost");
  let now = Date.UTC(2025, 0, 6, 9);
  let teamTokens = 0;
  let memoryTokens = 0;
  const team = instantModel({
    onCall: (messages) => {
      teamTokens += promptTokens(messages);
    },
  });
  const memoryModel = scriptedMemoryModel({
    onCall: (messages) => {
      memoryTokens += promptTokens(messages);
    },
  });
  const memory = memoryExtension({ clock: { now: () => now }, model: memoryModel });
  const stack = await openStack({ url: sqliteUrl(dir.path), models: { main: team }, extend: memory.extend });
  try {
    for (let turn = 1; turn <= TURNS; turn++) {
      for (let c = 0; c < CONVERSATIONS; c++) {
        now += 20_000;
        await stack.adapter.ask(`conversation-${c}`, message200("question", turn * 10 + c));
        await stack.engine.idle();
        await memory.memory().idle();
      }
      if (turn % TURNS_PER_SESSION === 0) {
        now += 31 * MINUTE;
        await memory.memory().sweeper.sweep();
      }
    }
  } finally {
    await stack.close();
    dir.remove();
  }
  const turns = TURNS * CONVERSATIONS;
  const callsPerTurn = round(memoryModel.stats.calls / turns, 2);
  const ratio = round(memoryTokens / teamTokens, 3);
  const where = `${CONVERSATIONS} conversations × ${TURNS} turns in sessions of ${TURNS_PER_SESSION}, archived when idle`;
  return [
    {
      key: "memoryModelCallsPerTurn",
      value: callsPerTurn,
      unit: "calls",
      baseline: { label: "team model calls per turn", value: round(team.stats.calls / turns, 2) },
      target: { text: "≤ 1", met: atMost(callsPerTurn, 1) },
      note: `memory on (defaults), ${where}: entries, context documents and archive summaries`,
    },
    {
      key: "memoryPromptTokensRatio",
      value: ratio,
      unit: "×",
      baseline: { label: "team prompt tokens", value: teamTokens },
      target: { text: "≤ 0.5", met: atMost(ratio, 0.5) },
      note: `memory model prompt tokens (${memoryTokens}) ÷ the team's over the same ${where}`,
    },
  ];
}
