import { describe, expect, it } from "vitest";
import { awayFromCpu, CpuSlots, SLOTS_AT_ONCE_PER_LOOP_TURN } from "./cpu-slots.ts";

/** Resolves once the event loop has turned (pending I/O had its chance). */
const loopTurn = () => new Promise((resolve) => setImmediate(resolve));

describe("CpuSlots", () => {
  it("passes slots on at once up to SLOTS_AT_ONCE_PER_LOOP_TURN in one turn of the loop, then lets the loop turn", async () => {
    const slots = new CpuSlots(1_000);
    let loopTurned = false;
    setImmediate(() => {
      loopTurned = true;
    });
    const seen: boolean[] = [];
    for (let index = 0; index <= SLOTS_AT_ONCE_PER_LOOP_TURN; index++) {
      const lease = await slots.lease(`conversation-${index}`);
      seen.push(loopTurned);
      lease.end();
    }
    // No loop turn for each of them: a loop turn per slot cost a burst a tenth of its CPU.
    expect(seen.slice(0, SLOTS_AT_ONCE_PER_LOOP_TURN).every((turned) => !turned)).toBe(true);
    // A run of hand-overs still lets I/O (acknowledgements) in.
    expect(seen.at(-1)).toBe(true);
  });

  it("a turn whose slot goes and comes back at once (pieces of an answer already here) lets the loop turn every SLOTS_AT_ONCE_PER_LOOP_TURN", async () => {
    const slots = new CpuSlots(1);
    const lease = await slots.lease("conversation");
    await loopTurn();
    let turns = 0;
    let counting = true;
    const count = () => {
      if (!counting) return;
      turns += 1;
      setImmediate(count);
    };
    setImmediate(count);
    const pieces = 3 * SLOTS_AT_ONCE_PER_LOOP_TURN;
    await lease.run(async () => {
      // Each piece of an answer that has already arrived: the slot goes and comes back at once.
      for (let piece = 0; piece < pieces; piece++) await awayFromCpu(() => Promise.resolve(piece));
    });
    counting = false;
    lease.end();
    expect(turns).toBeGreaterThanOrEqual(2);
    expect(turns).toBeLessThanOrEqual(4);
  });
});
