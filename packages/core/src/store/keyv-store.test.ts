import { join } from "node:path";
import { silentLogger } from "../runtime/logger.ts";
import { defineKeyvStoreSuite } from "./keyv-store.suite.ts";
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

// keyv stamps expiry with Date.now() itself, so the memory backend needs real time to pass.
defineKeyvStoreSuite(
  "memory",
  async () => ({
    open: () => openStore("memory://"),
    elapse: realTime.elapse,
    cleanup: async () => {},
  }),
  { persistent: false },
);

// A fake clock here proves the SQLite adapter enforces TTLs itself, not only keyv on top of it.
defineKeyvStoreSuite(
  "sqlite",
  async () => {
    const clock = fakeClock();
    const directory = await tempDirectory();
    const url = `sqlite://${join(directory.path, "kv.db")}`;
    return {
      open: () => openStore(url, { now: clock.now, logger: silentLogger }),
      elapse: clock.advance,
      cleanup: () => directory.remove(),
    };
  },
  { persistent: true },
);

describeWithRedis("against the test Redis", () => {
  defineKeyvStoreSuite(
    "redis",
    async () => {
      const prefix = uniqueRedisPrefix("keyv");
      return {
        open: () => openStore(`${TEST_REDIS_URL}?prefix=${prefix}`, { logger: silentLogger }),
        elapse: realTime.elapse,
        cleanup: async () => {
          await removeRedisKeys(prefix);
        },
      };
    },
    { persistent: true },
  );
});
