import { describe, expect, it } from "vitest";
import {
  countNamespaceCalls,
  countNamespaceGets,
  fakeClock,
  testStoreBackends,
} from "../store/test-backends.ts";
import { UsageBook, type UsageEvent, usageDay } from "./usage-book.ts";

const AT = Date.UTC(2026, 10, 26, 9);

const call = (conversationKey: string, costUsd: number): UsageEvent => ({
  at: AT,
  conversationKey,
  userId: "U1",
  agent: "supervisor",
  model: "gpt-4o-mini",
  inputTokens: 100,
  outputTokens: 20,
  cachedTokens: 0,
  costUsd,
});

describe.each(testStoreBackends("usage-book"))("UsageBook on %s", (_name, open) => {
  it("adds a process's own calls without reading its totals back, and sums what two writers added", async () => {
    const { store, cleanup } = await open();
    try {
      const counted = countNamespaceGets(store, "usage-totals");
      const readsMany = countNamespaceCalls(store, "usage-totals", "getMany");
      const clock = fakeClock(AT);
      const book = new UsageBook(store, { retentionDays: 7, clock });
      await book.record(call("c1", 0.5));
      await book.record(call("c2", 0.25));
      await book.record(call("c1", 0.5));
      expect(counted.reads()).toBe(0);
      // A writer whose id is given (its totals may be stored already) reads them first.
      const again = new UsageBook(store, { retentionDays: 7, clock, writerId: "w-given" });
      await again.record(call("c1", 1));
      // Its four partitions (conversation, user, agent, model), read together.
      expect(counted.reads()).toBe(0);
      expect(readsMany.calls()).toBe(1);
      const total = await book.total("conversation", "c1", [usageDay(AT)]);
      expect(total).toMatchObject({ calls: 3, inputTokens: 300, costUsd: 2 });
      expect((await book.total("user", "U1", [usageDay(AT)])).calls).toBe(4);
    } finally {
      await store.close();
      await cleanup();
    }
  });

  it("writes calls recorded while others are being written together, each total once, and adds them all", async () => {
    const { store, cleanup } = await open();
    try {
      const writes = countNamespaceCalls(store, "usage-totals", "set");
      const book = new UsageBook(store, { retentionDays: 7, clock: fakeClock(AT) });
      const conversations = Array.from({ length: 20 }, (_, n) => `c${n}`);
      await Promise.all(conversations.map((key) => book.record(call(key, 0.5))));
      // The first call alone (four totals), then the other 19 together: their 19 conversations'
      // totals and the user's, the agent's and the model's once.
      expect(writes.calls()).toBe(4 + 19 + 3);
      const today = [usageDay(AT)];
      expect(await book.total("agent", "supervisor", today)).toMatchObject({
        calls: 20,
        inputTokens: 2000,
        costUsd: 10,
      });
      expect((await book.total("conversation", "c7", today)).calls).toBe(1);
      await book.record(call("c7", 0.5));
      expect((await book.total("conversation", "c7", today)).calls).toBe(2);
      expect((await book.total("model", "gpt-4o-mini", today)).calls).toBe(21);
    } finally {
      await store.close();
      await cleanup();
    }
  });
});
