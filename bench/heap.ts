import { atMost, type Figure } from "./support/figures.ts";
import { instantModel } from "./support/instant.ts";
import { memoryExtension } from "./support/memory.ts";
import { plainGraph } from "./support/plain-graph.ts";
import { round, settle } from "./support/stats.ts";
import { openStack, type StackOptions } from "./support/switchboard-stack.ts";
import { sqliteUrl, tempDir } from "./support/temp-dir.ts";
import { message200 } from "./support/text.ts";

const CONVERSATIONS = 100_000;
const BASELINE_CONVERSATIONS = 10_000;
const IN_FLIGHT = 32;
const WARM_UP = 1_000;

/** V8 heap in use once everything collectable is collected. */
async function heapAfterGc(): Promise<number> {
  const gc = globalThis.gc;
  if (!gc) throw new Error("heap figures need node --expose-gc (pnpm bench passes it)");
  for (let i = 0; i < 3; i++) {
    await settle();
    gc();
  }
  return process.memoryUsage().heapUsed;
}

/** Sends one message to each of `count` new conversations, IN_FLIGHT at a time; stops at the deadline. */
async function load(count: number, deadline: number, send: (index: number) => Promise<unknown>) {
  let next = 0;
  const worker = async () => {
    while (next < count && performance.now() < deadline) await send(next++);
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return next;
}

/**
 * Heap the process keeps for conversations that were answered and are now quiet: after a warm-up
 * (so compiled code is not counted as data), heap after GC before and after loading conversations
 * (one message each, engine idle, memory's queued work done), divided by how many were loaded.
 */
async function heapPerConversation(
  options: Omit<StackOptions, "url">,
  timeBoxMs: number,
  idle = async () => {},
) {
  const dir = tempDir("heap");
  const stack = await openStack({ ...options, url: sqliteUrl(dir.path) });
  try {
    await load(WARM_UP, Number.POSITIVE_INFINITY, (i) => stack.adapter.ask(`warm-${i}`, message200("q", i)));
    await stack.engine.idle();
    await idle();
    const before = await heapAfterGc();
    const deadline = performance.now() + timeBoxMs;
    const loaded = await load(CONVERSATIONS, deadline, (i) =>
      stack.adapter.ask(`c-${i}`, message200("q", i)),
    );
    await stack.engine.idle();
    await idle();
    return { loaded, bytes: round(((await heapAfterGc()) - before) / loaded, 0) };
  } finally {
    await stack.close();
    dir.remove();
  }
}

function sized(loaded: number): string {
  return loaded >= CONVERSATIONS
    ? `${CONVERSATIONS} conversations`
    : `time-boxed: ${loaded} of ${CONVERSATIONS} conversations`;
}

export async function measureHeap(options: {
  timeBoxMs: number;
  memoryTimeBoxMs: number;
}): Promise<Figure[]> {
  const bare = await heapPerConversation({ models: { main: instantModel() } }, options.timeBoxMs);

  const memory = memoryExtension({ clock: { now: Date.now } });
  const withMemory = await heapPerConversation(
    { models: { main: instantModel() }, extend: memory.extend },
    options.memoryTimeBoxMs,
    () => memory.memory().idle(),
  );

  const plain = plainGraph(instantModel());
  await load(WARM_UP, Number.POSITIVE_INFINITY, (i) => plain.turn(`warm-${i}`, message200("q", i)));
  const before = await heapAfterGc();
  await load(BASELINE_CONVERSATIONS, Number.POSITIVE_INFINITY, (i) =>
    plain.turn(`c-${i}`, message200("q", i)),
  );
  const baseline = round(((await heapAfterGc()) - before) / BASELINE_CONVERSATIONS, 0);

  return [
    {
      key: "heapBytesPerIdleConversation",
      value: bare.bytes,
      unit: "B",
      baseline: { label: "plain graph + MemorySaver", value: baseline },
      target: { text: "≤ 2 KB", met: atMost(bare.bytes, 2048) },
      note:
        `${sized(bare.loaded)} loaded (one message each, ${IN_FLIGHT} in flight, SQLite store and checkpoints, ` +
        `memory off); heap growth after GC ÷ conversations. Baseline: ${BASELINE_CONVERSATIONS} threads in MemorySaver`,
    },
    {
      key: "heapBytesPerIdleConversationWithMemory",
      value: withMemory.bytes,
      unit: "B",
      target: { text: "≤ 2 KB", met: atMost(withMemory.bytes, 2048) },
      note: `the same with memory on (defaults), ${sized(withMemory.loaded)}`,
    },
  ];
}
