import type { Figure } from "./support/figures.ts";
import { atLeast } from "./support/figures.ts";
import { instantModel } from "./support/instant.ts";
import { memoryExtension } from "./support/memory.ts";
import { plainGraph } from "./support/plain-graph.ts";
import { round } from "./support/stats.ts";
import { openStack, type StackOptions } from "./support/switchboard-stack.ts";
import { sqliteUrl, tempDir } from "./support/temp-dir.ts";
import { message200 } from "./support/text.ts";

const CONVERSATIONS = 10_000;
/** Messages in flight at once, as when many users write at the same moment. */
const IN_FLIGHT = 32;
const WARM_UP = 200;

export interface ThroughputOptions {
  /** Each side stops starting new conversations after this long and is rated on what it did. */
  readonly timeBoxMs: number;
  /** The same with memory on (much slower per message): a shorter box. */
  readonly memoryTimeBoxMs: number;
}

/** Our messages per second on a fresh SQLite store, until every answer is delivered and all work is done. */
async function ourRate(options: Omit<StackOptions, "url">, timeBoxMs: number, idle = async () => {}) {
  const dir = tempDir("throughput");
  const stack = await openStack({ ...options, url: sqliteUrl(dir.path) });
  try {
    await drive(WARM_UP, Number.POSITIVE_INFINITY, (i) =>
      stack.adapter.ask(`warm-${i}`, message200("question", i)),
    );
    await stack.engine.idle();
    await idle();
    const run = await drive(CONVERSATIONS, timeBoxMs, (i) =>
      stack.adapter.ask(`c-${i}`, message200("question", i)),
    );
    const settleStarted = performance.now();
    await stack.engine.idle();
    await idle();
    return { done: run.done, seconds: run.seconds + (performance.now() - settleStarted) / 1000 };
  } finally {
    await stack.close();
    dir.remove();
  }
}

/** Runs `turn(0..count-1)` with at most IN_FLIGHT pending; resolves with how many ran and the seconds taken. */
async function drive(count: number, timeBoxMs: number, turn: (index: number) => Promise<unknown>) {
  const started = performance.now();
  const deadline = started + timeBoxMs;
  let next = 0;
  const worker = async () => {
    while (next < count && performance.now() < deadline) await turn(next++);
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return { done: next, seconds: (performance.now() - started) / 1000 };
}

/**
 * One process, one message in each of 10,000 fresh conversations, IN_FLIGHT at a time, SQLite
 * store and checkpoints: messages answered per second, waiting at the end until every answer is
 * delivered and the engine is idle. The baseline runs the same turns through the plain graph.
 */
export async function measureThroughput(options: ThroughputOptions): Promise<Figure[]> {
  const ours = await ourRate({ models: { main: instantModel() } }, options.timeBoxMs);
  const memory = memoryExtension({ clock: { now: Date.now } });
  const withMemory = await ourRate(
    { models: { main: instantModel() }, extend: memory.extend },
    options.memoryTimeBoxMs,
    () => memory.memory().idle(),
  );
  const plain = plainGraph(instantModel());
  await drive(WARM_UP, Number.POSITIVE_INFINITY, (i) => plain.turn(`warm-${i}`, message200("question", i)));
  const baseline = await drive(CONVERSATIONS, options.timeBoxMs, (i) =>
    plain.turn(`c-${i}`, message200("question", i)),
  );
  const perSecond = round(ours.done / ours.seconds, 1);
  const baselinePerSecond = round(baseline.done / baseline.seconds, 1);
  const withMemoryPerSecond = round(withMemory.done / withMemory.seconds, 1);
  const sized = (run: { done: number }) =>
    run.done === CONVERSATIONS
      ? `${CONVERSATIONS} conversations`
      : `time-boxed: ${run.done} of ${CONVERSATIONS} conversations`;
  return [
    {
      key: "throughputPerSec",
      value: perSecond,
      unit: "msg/s",
      baseline: { label: "baselineTurnsPerSec", value: baselinePerSecond },
      target: { text: "≥ 0.8 × baselineTurnsPerSec", met: atLeast(perSecond, 0.8 * baselinePerSecond) },
      note: `${sized(ours)}, one message each, ${IN_FLIGHT} in flight, SQLite store and checkpoints, memory off, until idle`,
    },
    {
      key: "throughputWithMemoryPerSec",
      value: withMemoryPerSecond,
      unit: "msg/s",
      baseline: { label: "throughputPerSec", value: perSecond },
      target: { text: "≥ 0.6 × throughputPerSec", met: atLeast(withMemoryPerSecond, 0.6 * perSecond) },
      note: `the same with memory on (defaults; a first turn joins its session without a model call: memory's calls, every 3 turns and at archiving, are counted by memory-cost), ${sized(withMemory)}, until memory's work is done too`,
    },
    {
      key: "baselineTurnsPerSec",
      value: baselinePerSecond,
      unit: "turns/s",
      note: `${sized(baseline)}: plain one-node graph + MemorySaver, ${IN_FLIGHT} in flight, same process`,
    },
  ];
}
