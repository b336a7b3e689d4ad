import { join } from "node:path";
import { afterAll } from "vitest";
import { silentLogger } from "../runtime/logger.ts";
import { type AtomicStoreFixture, defineAtomicStoreSuite } from "./atomic-store.suite.ts";
import { defineLockedQueueSuite } from "./locked-queue.suite.ts";
import { openStore } from "./open-store.ts";
import {
  describeWithRedis,
  fakeClock,
  realTime,
  removeRedisKeys,
  TEST_REDIS_URL,
  tempDirectory,
  uniqueRedisPrefix,
} from "./test-backends.ts";

async function memoryFixture(): Promise<AtomicStoreFixture> {
  const clock = fakeClock();
  const store = await openStore("memory://", { now: clock.now });
  return { store: store.atomic, elapse: clock.advance, close: () => store.close() };
}

async function sqliteFixture(): Promise<AtomicStoreFixture> {
  const clock = fakeClock();
  const directory = await tempDirectory();
  const url = `sqlite://${join(directory.path, "atomic.db")}`;
  const store = await openStore(url, { now: clock.now, logger: silentLogger });
  const sibling = await openStore(url, { now: clock.now, logger: silentLogger });
  return {
    store: store.atomic,
    sibling: sibling.atomic,
    elapse: clock.advance,
    close: async () => {
      await store.close();
      await sibling.close();
      await directory.remove();
    },
  };
}

defineAtomicStoreSuite("memory", memoryFixture, { hasSiblings: false });
defineLockedQueueSuite("memory", memoryFixture);
defineAtomicStoreSuite("sqlite", sqliteFixture, { hasSiblings: true });
defineLockedQueueSuite("sqlite", sqliteFixture);

describeWithRedis("against the test Redis", () => {
  const redisPrefix = uniqueRedisPrefix("atomic");
  afterAll(() => removeRedisKeys(redisPrefix));

  const redisFixture = async (): Promise<AtomicStoreFixture> => {
    const url = `${TEST_REDIS_URL}?prefix=${redisPrefix}`;
    const store = await openStore(url, { logger: silentLogger });
    const sibling = await openStore(url, { logger: silentLogger });
    return {
      store: store.atomic,
      sibling: sibling.atomic,
      elapse: realTime.elapse,
      close: async () => {
        await store.close();
        await sibling.close();
      },
    };
  };
  defineAtomicStoreSuite("redis", redisFixture, { hasSiblings: true });
  defineLockedQueueSuite("redis", redisFixture);
});
