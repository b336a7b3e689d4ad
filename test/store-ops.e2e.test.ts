import { join } from "node:path";
import { openStore, type Store, silentLogger } from "@switchboard/core";
import { afterAll, describe, expect, it } from "vitest";
import {
  removeRedisKeys,
  TEST_REDIS_URL,
  tempDirectory,
  uniqueRedisPrefix,
} from "../packages/core/src/store/test-backends.ts";
import { seedOtherConversations, startCountedHotPath } from "./support/hot-path-harness.ts";

/** Store operations of a few messages — new threads and follow-ups — after a warm-up message. */
async function operationsPerMessage(
  store: Store,
): Promise<{ perMessage: number; atomicPerMessage: number; byOperation: Map<string, number> }> {
  const hotPath = await startCountedHotPath(store);
  try {
    await hotPath.say("warm-up", "hello");
    hotPath.counting.reset();
    const messages: Array<[string, string]> = [
      ["thread-a", "how do I reset my password?"],
      ["thread-a", "and where is the settings page?"],
      ["thread-b", "what are the opening hours?"],
      ["thread-b", "thanks, and on Sundays?"],
    ];
    for (const [thread, text] of messages) await hotPath.say(thread, text);
    expect(hotPath.adapter.posts).toHaveLength(messages.length + 1);
    const atomic = [...hotPath.counting.byOperation()].filter(([operation]) =>
      operation.startsWith("atomic."),
    );
    return {
      perMessage: hotPath.counting.total() / messages.length,
      atomicPerMessage: atomic.reduce((sum, [, count]) => sum + count, 0) / messages.length,
      byOperation: hotPath.counting.byOperation(),
    };
  } finally {
    await hotPath.stop();
  }
}

const redisPrefixes: string[] = [];
afterAll(async () => {
  for (const prefix of redisPrefixes) await removeRedisKeys(prefix);
});

const backends: Array<[string, () => Promise<{ store: Store; remove(): Promise<void> }>]> = [
  [
    "sqlite",
    async () => {
      const directory = await tempDirectory();
      const store = await openStore(`sqlite://${join(directory.path, "ops.db")}`, { logger: silentLogger });
      return { store, remove: directory.remove };
    },
  ],
  [
    "redis",
    async () => {
      const prefix = uniqueRedisPrefix("store-ops");
      redisPrefixes.push(prefix);
      const store = await openStore(`${TEST_REDIS_URL}?prefix=${prefix}`, { logger: silentLogger });
      return { store, remove: async () => void (await removeRedisKeys(prefix)) };
    },
  ],
];

describe.each(backends)("store operations per message on %s", (_name, open) => {
  const measureWith = async (stored: number) => {
    const { store, remove } = await open();
    try {
      await seedOtherConversations(store, stored);
      return await operationsPerMessage(store);
    } finally {
      await store.close();
      await remove();
    }
  };

  it("are the same with 10,000 stored conversations as with 100, and list nothing", {
    timeout: 120_000,
  }, async () => {
    const few = await measureWith(100);
    const many = await measureWith(10_000);
    // Equal but for cache timing (the active-agent cache expires after two seconds).
    expect(many.perMessage).toBeLessThanOrEqual(few.perMessage * 1.1);
    expect([...many.byOperation.keys()].filter((operation) => operation.endsWith("iterator-entry"))).toEqual(
      [],
    );
    // A turn is a fixed handful of reads and writes: intake, lock, request record, memory.
    expect(many.perMessage).toBeLessThan(50);
    // Learnings: one read of the turn's person, thread and place per message, never a write.
    expect(many.byOperation.get("kv:learnings.getMany")).toBe(4);
    expect([...many.byOperation.keys()].filter((operation) => operation.startsWith("kv:learnings."))).toEqual(
      ["kv:learnings.getMany"],
    );
    // Queue and lock of a message in an idle conversation: intake (dedupe + enqueue), lock + first
    // peek, last ack + lock release — three steps, not five.
    expect(many.atomicPerMessage).toBe(3);
    console.info(`store operations per message: ${many.perMessage}`, Object.fromEntries(many.byOperation));
  });
});
