import { atMost, type Figure } from "./support/figures.ts";
import { instantModel } from "./support/instant.ts";
import { memoryExtension } from "./support/memory.ts";
import { openStack } from "./support/switchboard-stack.ts";
import { sqliteUrl, tempDir } from "./support/temp-dir.ts";
import { message200 } from "./support/text.ts";
import { promptTokens } from "./support/tokens.ts";

const TURNS = 500;
/** A user's sitting: this many turns, then quiet for longer than memory.idleMinutes. */
const TURNS_PER_SESSION = 10;
const MINUTE = 60_000;

/**
 * Prompt tokens of the team's model call at turns 50 and 500 of one conversation, memory on with
 * its defaults (compaction at 8,000 tokens). With `archive`, the user pauses 31 minutes after every
 * 10 turns and the idle sweep archives the session, as it would in production.
 */
async function promptsOver(archive: boolean): Promise<Map<number, number>> {
  const dir = tempDir("prompt-size");
  const url = sqliteUrl(dir.path);
  let now = Date.UTC(2025, 0, 6, 9);
  let turn = 0;
  const prompts = new Map<number, number>();
  const model = instantModel({ onCall: (messages) => prompts.set(turn, promptTokens(messages)) });
  const memory = memoryExtension({ clock: { now: () => now } });
  const stack = await openStack({ url, models: { main: model }, extend: memory.extend });
  try {
    for (turn = 1; turn <= TURNS; turn++) {
      now += 20_000;
      await stack.adapter.ask("long", message200("question", turn));
      await stack.engine.idle();
      await memory.memory().idle();
      if (archive && turn % TURNS_PER_SESSION === 0) {
        now += 31 * MINUTE;
        const archived = await memory.memory().sweeper.sweep();
        if (archived.length !== 1)
          throw new Error(`turn ${turn}: expected one archived session, got ${archived.length}`);
      }
    }
  } finally {
    await stack.close();
    dir.remove();
  }
  return prompts;
}

export async function measurePromptSize(): Promise<Figure[]> {
  const archived = await promptsOver(true);
  const kept = await promptsOver(false);
  const at50 = archived.get(50) ?? null;
  const at500 = archived.get(TURNS) ?? null;
  return [
    {
      key: "promptTokensAt50",
      value: at50,
      unit: "tokens",
      baseline: { label: "without archiving", value: kept.get(50) ?? null },
      note:
        `memory on (defaults), ${TURNS_PER_SESSION}-turn sessions archived after 31 quiet minutes; ` +
        "tokens ≈ characters / 4 of everything the team's model call receives, system prompt included",
    },
    {
      key: "promptTokensAt500",
      value: at500,
      unit: "tokens",
      baseline: { label: "promptTokensAt500NoArchive", value: kept.get(TURNS) ?? null },
      target: { text: "≤ 1.5 × promptTokensAt50", met: atMost(at500, at50 === null ? null : 1.5 * at50) },
    },
    {
      key: "promptTokensAt500NoArchive",
      value: kept.get(TURNS) ?? null,
      unit: "tokens",
      note: "memory on, one session of 500 turns never archived: only compaction (8,000-token budget) bounds it",
    },
  ];
}
