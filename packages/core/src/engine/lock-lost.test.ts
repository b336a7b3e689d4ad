import { describe, expect, it } from "vitest";
import { createMemoryLogger } from "../runtime/logger.ts";
import { MemoryAtomicStore } from "../store/memory/memory-atomic-store.ts";
import { waitFor } from "../testing/wait.ts";
import { ConversationSerializer } from "./serializer.ts";

/** The memory store, except that the next renewal fails once `lose` is called (as after an expiry). */
class StoreThatLosesLocks extends MemoryAtomicStore {
  #lost = false;
  lose(): void {
    this.#lost = true;
  }
  override async extendLock(key: string, token: string, ttlMs: number): Promise<boolean> {
    if (!this.#lost) return super.extendLock(key, token, ttlMs);
    this.#lost = false;
    await this.releaseLock(key, token);
    return false;
  }
}

describe("a turn whose conversation lock was lost", () => {
  it("leaves its item queued (the new holder runs it) even when the work returns normally", async () => {
    const atomic = new StoreThatLosesLocks();
    const runs: string[] = [];
    const serializer = new ConversationSerializer({
      atomic,
      logger: createMemoryLogger(),
      lockTtlMs: 90,
      policy: "queue",
      maxConcurrentTurns: 4,
      maxTurnMs: 60_000,
      stopRequested: async () => false,
      // Like the turn processor: a cancelled turn is reported and the work returns without throwing.
      work: async (_key, items, signal) => {
        runs.push(items.join("+"));
        if (runs.length === 1) {
          atomic.lose();
          await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
        }
      },
    });
    await serializer.submit("k", "first", 1);
    await waitFor("the item to run again after the lock was lost", () => runs.length === 2, 5_000);
    await serializer.idle();
    expect(runs).toEqual(["first", "first"]);
    expect(await atomic.queueLength("queue:k")).toBe(0);
    await serializer.stop();
  });
});
