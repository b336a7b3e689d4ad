import { join } from "node:path";
import { type StorageSnapshot, sqliteCheckpointBytes, storageFigures } from "./storage.ts";
import type { Figure } from "./support/figures.ts";
import { atMost } from "./support/figures.ts";
import { instantModel } from "./support/instant.ts";
import { memoryExtension } from "./support/memory.ts";
import { memorySaverBytes, plainGraph } from "./support/plain-graph.ts";
import type { ScriptedChatModel } from "./support/scripted-model.ts";
import { median, round } from "./support/stats.ts";
import { openStack, type Stack } from "./support/switchboard-stack.ts";
import { sqliteUrl, tempDir } from "./support/temp-dir.ts";
import { message200 } from "./support/text.ts";
import { promptTokens } from "./support/tokens.ts";

const TURNS = 500;
/** turnMsAtN is the median of turns N-WINDOW+1 … N: one turn alone is too noisy. */
const WINDOW = 10;
const PLACE = "long";
const KEY = "bench:long";

/** Accept → post minus the model's own time, for one message of the long conversation. */
async function timedTurn(stack: Stack, model: ScriptedChatModel, text: string): Promise<number> {
  const modelBefore = model.stats.busyMs;
  const total = await stack.adapter.ask(PLACE, text);
  await stack.engine.idle();
  return total - (model.stats.busyMs - modelBefore);
}

/**
 * One conversation of 500 turns: first our two set-ups interleaved turn by turn (so machine noise
 * hits both alike) — the default configuration (memory on: compaction; never idle, so no
 * archiving) and memory off — then the plain graph with MemorySaver. The baseline runs after
 * ours, not beside it: by turn 500 it holds ~300 MB in the heap, which would slow every garbage
 * collection of ours. Memory's own work runs after each delivery and is waited for between turns,
 * outside the timings.
 */
export async function measureLongThread(): Promise<Figure[]> {
  const dirs = { memory: tempDir("long-memory"), bare: tempDir("long-bare") };
  let turn = 0;
  let now = Date.UTC(2025, 0, 6, 9);
  const prompts = new Map<number, number>();
  const memoryModel = instantModel();
  const bareModel = instantModel({ onCall: (messages) => prompts.set(turn, promptTokens(messages)) });
  const memory = memoryExtension({ clock: { now: () => now } });
  const withMemory = await openStack({
    url: sqliteUrl(dirs.memory.path),
    models: { main: memoryModel },
    extend: memory.extend,
  });
  const bare = await openStack({ url: sqliteUrl(dirs.bare.path), models: { main: bareModel } });
  const times = { memory: [] as number[], bare: [] as number[], plain: [] as number[] };
  const ourBytes = new Map<number, number>();
  try {
    for (turn = 1; turn <= TURNS; turn++) {
      const text = message200("question", turn);
      now += 20_000;
      times.memory.push(await timedTurn(withMemory, memoryModel, text));
      await memory.memory().idle();
      times.bare.push(await timedTurn(bare, bareModel, text));
      if (turn === 50 || turn === TURNS)
        ourBytes.set(turn, sqliteCheckpointBytes(join(dirs.bare.path, "switchboard.db"), KEY));
    }
  } finally {
    await withMemory.close();
    await bare.close();
    dirs.memory.remove();
    dirs.bare.remove();
  }

  const plainModel = instantModel();
  const plain = plainGraph(plainModel);
  const plainBytes = new Map<number, number>();
  for (turn = 1; turn <= TURNS; turn++) {
    const modelBefore = plainModel.stats.busyMs;
    const plainMs = await plain.turn(PLACE, message200("question", turn));
    times.plain.push(plainMs - (plainModel.stats.busyMs - modelBefore));
    if (turn === 50 || turn === TURNS) plainBytes.set(turn, memorySaverBytes(plain.saver, PLACE));
  }
  const snapshot = (at: number): StorageSnapshot => ({
    turn: at,
    ours: ourBytes.get(at) ?? 0,
    baseline: plainBytes.get(at) ?? 0,
  });

  const around = (samples: number[], at: number) => round(median(samples.slice(at - WINDOW, at)), 3);
  const at50 = around(times.memory, 50);
  const at500 = around(times.memory, TURNS);
  const bare50 = around(times.bare, 50);
  const bare500 = around(times.bare, TURNS);
  return [
    {
      key: "turnMsAt50",
      value: at50,
      unit: "ms",
      baseline: { label: "baselineTurnMsAt50", value: around(times.plain, 50) },
      note:
        `one conversation, accept → post minus model time, SQLite store and checkpoints, memory on ` +
        `(defaults; never idle, so compaction but no archiving); median of turns ${50 - WINDOW + 1}–50 and ` +
        `${TURNS - WINDOW + 1}–${TURNS}`,
    },
    {
      key: "turnMsAt500",
      value: at500,
      unit: "ms",
      baseline: { label: "baselineTurnMsAt500", value: around(times.plain, TURNS) },
      target: { text: "≤ 1.5 × turnMsAt50", met: atMost(at500, 1.5 * at50) },
      note: `growth 50 → 500: ${(at500 / at50).toFixed(1)}× (baseline ${(around(times.plain, TURNS) / around(times.plain, 50)).toFixed(1)}×)`,
    },
    {
      key: "turnMsAt50NoMemory",
      value: bare50,
      unit: "ms",
      note: "the same conversation with memory off: the whole history stays in the team's checkpoint",
    },
    {
      key: "turnMsAt500NoMemory",
      value: bare500,
      unit: "ms",
      target: { text: "≤ 1.5 × turnMsAt50NoMemory", met: atMost(bare500, 1.5 * bare50) },
      note: `growth 50 → 500: ${(bare500 / bare50).toFixed(1)}×`,
    },
    {
      key: "baselineTurnMsAt50",
      value: around(times.plain, 50),
      unit: "ms",
      note: "plain graph + MemorySaver, the same turns",
    },
    { key: "baselineTurnMsAt500", value: around(times.plain, TURNS), unit: "ms" },
    ...storageFigures(snapshot(50), snapshot(TURNS)),
    {
      key: "promptTokensAt500NoMemory",
      value: prompts.get(TURNS) ?? null,
      unit: "tokens",
      note: `memory off: the whole history goes into every call (turn 50: ${prompts.get(50)} tokens)`,
    },
  ];
}
