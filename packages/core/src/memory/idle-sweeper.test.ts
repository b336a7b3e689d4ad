import { describe, expect, it } from "vitest";
import { silentLogger } from "../runtime/logger.ts";
import { openStore } from "../store/open-store.ts";
import { LiveSessions } from "./active-sessions.ts";
import type { ArchivedSession } from "./archive/archive-store.ts";
import { IdleSweeper, SWEEP_CONCURRENCY } from "./idle-sweeper.ts";

/** An archiver whose archives finish only when the test lets them. */
function heldArchiver() {
  const held: Array<{ key: string; finish: () => void }> = [];
  let running = 0;
  let mostAtOnce = 0;
  const waiters: Array<() => void> = [];
  return {
    held,
    get mostAtOnce() {
      return mostAtOnce;
    },
    /** Resolves once `count` archives are waiting to be let go. */
    async waitingFor(count: number) {
      while (held.length < count) await new Promise<void>((resolve) => waiters.push(resolve));
    },
    endIfIdle(key: string): Promise<ArchivedSession | undefined> {
      running += 1;
      mostAtOnce = Math.max(mostAtOnce, running);
      return new Promise((resolve) => {
        held.push({
          key,
          finish: () => {
            running -= 1;
            resolve(undefined);
          },
        });
        for (const wake of waiters.splice(0)) wake();
      });
    },
  };
}

describe("IdleSweeper", () => {
  it(`archives quiet sessions ${SWEEP_CONCURRENCY} at a time, each once, until none is left`, async () => {
    const store = await openStore("memory://");
    const sessions = new LiveSessions(store);
    const keys = Array.from({ length: 20 }, (_, index) => `slack:T1:C${index}`);
    for (const key of keys) await sessions.touch(key, "ana", 1_000);
    const archiver = heldArchiver();
    const sweeper = new IdleSweeper({
      sessions,
      invoker: archiver,
      idleMs: 60_000,
      clock: { now: () => 100_000 },
      logger: silentLogger,
    });
    const sweep = sweeper.sweep();
    await archiver.waitingFor(SWEEP_CONCURRENCY);
    // The sweep waits for those before it starts more: never more than the limit at once.
    expect(archiver.held.length).toBe(SWEEP_CONCURRENCY);
    let released = 0;
    while (released < keys.length) {
      await archiver.waitingFor(released + 1);
      archiver.held[released]?.finish();
      released += 1;
    }
    await sweep;
    expect(archiver.mostAtOnce).toBe(SWEEP_CONCURRENCY);
    expect(archiver.held.map((one) => one.key).sort()).toEqual([...keys].sort());
    await store.close();
  });
});
