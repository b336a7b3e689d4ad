import { join } from "node:path";
import { afterAll } from "vitest";
import { silentLogger } from "../runtime/logger.ts";
import { openStore } from "./open-store.ts";
import { defineSortedSetsSuite } from "./sorted-sets.suite.ts";
import { removeRedisKeys, TEST_REDIS_URL, tempDirectory, uniqueRedisPrefix } from "./test-backends.ts";

defineSortedSetsSuite("memory", async () => {
  const store = await openStore("memory://");
  return { sets: store.sortedSets, close: () => store.close() };
});

defineSortedSetsSuite("sqlite", async () => {
  const directory = await tempDirectory();
  const url = `sqlite://${join(directory.path, "sorted.db")}`;
  const store = await openStore(url, { logger: silentLogger });
  const sibling = await openStore(url, { logger: silentLogger });
  return {
    sets: store.sortedSets,
    sibling: sibling.sortedSets,
    close: async () => {
      await store.close();
      await sibling.close();
      await directory.remove();
    },
  };
});

const redisPrefix = uniqueRedisPrefix("sorted");
afterAll(() => removeRedisKeys(redisPrefix));

defineSortedSetsSuite("redis", async () => {
  const url = `${TEST_REDIS_URL}?prefix=${redisPrefix}`;
  const store = await openStore(url, { logger: silentLogger });
  const sibling = await openStore(url, { logger: silentLogger });
  return {
    sets: store.sortedSets,
    sibling: sibling.sortedSets,
    close: async () => {
      await store.close();
      await sibling.close();
    },
  };
});
