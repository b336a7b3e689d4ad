import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { createMemoryLogger } from "../runtime/logger.ts";
import { MemoryAtomicStore } from "../store/memory/memory-atomic-store.ts";
import { ConversationSerializer } from "./serializer.ts";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** Heap in use once everything collectable is collected (finalization callbacks included). */
async function heapAfterGc(): Promise<number> {
  for (let i = 0; i < 4; i++) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
  return process.memoryUsage().heapUsed;
}

async function runTurns(serializer: ConversationSerializer, from: number, count: number): Promise<void> {
  for (let i = from; i < from + count; i++) await serializer.submit(`c${i % 50}`, `m${i}`, i);
  await serializer.idle();
}

describe("a serializer that has run many turns", () => {
  it("keeps no memory per finished turn (a process runs millions)", async () => {
    const serializer = new ConversationSerializer({
      atomic: new MemoryAtomicStore(),
      logger: createMemoryLogger(),
      lockTtlMs: 60_000,
      policy: "queue",
      maxConcurrentTurns: 8,
      maxTurnMs: 60_000,
      stopRequested: async () => false,
      work: async () => {},
    });
    const turns = 20_000;
    await runTurns(serializer, 0, 2_000);
    const before = await heapAfterGc();
    await runTurns(serializer, 2_000, turns);
    const perTurn = ((await heapAfterGc()) - before) / turns;
    await serializer.stop();
    // Composing each turn's signal with the serializer's own stop signal (AbortSignal.any) kept
    // about 200 bytes per turn for as long as the serializer lived.
    expect(perTurn).toBeLessThan(40);
  }, 60_000);
});
