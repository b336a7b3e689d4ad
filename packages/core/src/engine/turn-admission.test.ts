import { afterEach, describe, expect, it } from "vitest";
import { awayFromCpu } from "../capacity/cpu-slots.ts";
import { createMemoryLogger } from "../runtime/logger.ts";
import { MemoryAtomicStore } from "../store/memory/memory-atomic-store.ts";
import { gate } from "../testing/gate.ts";
import { waitFor } from "../testing/wait.ts";
import { ConversationSerializer, type SerializerOptions } from "./serializer.ts";

let serializer: ConversationSerializer | undefined;
afterEach(async () => {
  await serializer?.stop();
  serializer = undefined;
});

function serializerWith(options: Pick<SerializerOptions, "work" | "maxConcurrentTurns" | "cpuSlots">) {
  serializer = new ConversationSerializer({
    atomic: new MemoryAtomicStore(),
    logger: createMemoryLogger(),
    lockTtlMs: 5_000,
    policy: "queue",
    maxTurnMs: 60_000,
    stopRequested: async () => false,
    ...options,
  });
  return serializer;
}

describe("turn admission", () => {
  it("serves conversations in arrival order: ten queued messages in one thread do not hold another back", async () => {
    const ran: string[] = [];
    const firstTurn = gate();
    const turns = serializerWith({
      maxConcurrentTurns: 1,
      work: async (key, items) => {
        ran.push(`${key}:${items.join("+")}`);
        if (ran.length === 1) await firstTurn.opened;
      },
    });
    for (let i = 1; i <= 10; i++) await turns.submit("busy", `m${i}`, i);
    await waitFor("the busy thread's first turn to run", () => ran.length === 1);
    await turns.submit("quiet", "q1", 1);
    await waitFor("the quiet thread to wait for its turn", () => turns.isWaitingToStart("quiet"));
    firstTurn.open();
    await turns.idle();
    expect(ran.slice(0, 3)).toEqual(["busy:m1", "quiet:q1", "busy:m2"]);
    expect(ran).toHaveLength(11);
  });

  it("a turn waiting on a model holds no CPU slot: with one slot, another conversation is answered meanwhile", async () => {
    const hung = gate();
    const answered: string[] = [];
    const turns = serializerWith({
      maxConcurrentTurns: 10,
      cpuSlots: { initial: 1, min: 1, max: 1, targetDelayMs: 1_000 },
      work: async (key) => {
        // The model call of `stuck` never answers until the test says so.
        if (key === "stuck") await awayFromCpu(() => hung.opened);
        answered.push(key);
      },
    });
    await turns.submit("stuck", "a", 1);
    await waitFor("the stuck turn to wait on its model", () => turns.isRunning("stuck"));
    await turns.submit("other", "b", 1);
    await waitFor("the other conversation's answer", () => answered.includes("other"));
    expect(answered).toEqual(["other"]);
    expect(turns.health()).toMatchObject({ runningTurns: 1, cpuSlots: { limit: 1, inUse: 0 } });
    hung.open();
    await turns.idle();
    expect(answered).toEqual(["other", "stuck"]);
  });

  it("a turn computing holds its slot: with one slot, the next conversation waits for it", async () => {
    const computing = gate();
    const started: string[] = [];
    const turns = serializerWith({
      maxConcurrentTurns: 10,
      cpuSlots: { initial: 1, min: 1, max: 1, targetDelayMs: 1_000 },
      work: async (key) => {
        started.push(key);
        if (key === "first") await computing.opened;
      },
    });
    await turns.submit("first", "a", 1);
    await waitFor("the first turn to run", () => started.length === 1);
    await turns.submit("second", "b", 1);
    await waitFor("the second turn to wait for the slot", () => turns.isWaitingToStart("second"));
    expect(turns.health()).toMatchObject({ waitingToStart: 1, cpuSlots: { inUse: 1, waiting: 1 } });
    computing.open();
    await turns.idle();
    expect(started).toEqual(["first", "second"]);
  });
});
