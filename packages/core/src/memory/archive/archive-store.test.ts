import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { silentLogger } from "../../runtime/logger.ts";
import { openStore } from "../../store/open-store.ts";
import {
  describeWithRedis,
  removeRedisKeys,
  TEST_REDIS_URL,
  tempDirectory,
  uniqueRedisPrefix,
} from "../../store/test-backends.ts";
import type { Store } from "../../store/types.ts";
import { defineArchiveStoreSuite } from "./archive-store.suite.ts";
import { workspaceOf } from "./archive-store.ts";
import { KeyvArchiveStore } from "./keyv-archive-store.ts";
import { openArchiveStore } from "./open-archive-store.ts";
import { SqliteArchiveStore } from "./sqlite-archive-store.ts";

defineArchiveStoreSuite("sqlite (FTS5)", async () => {
  const directory = await tempDirectory();
  const url = `sqlite://${join(directory.path, "memory.db")}`;
  const stores: Store[] = [];
  return {
    open: async () => {
      const store = await openStore(url, { logger: silentLogger });
      stores.push(store);
      return openArchiveStore(store, url);
    },
    cleanup: async () => {
      for (const store of stores) await store.close();
      await directory.remove();
    },
  };
});

describeWithRedis("against the test Redis", () => {
  defineArchiveStoreSuite("redis (keyv scan)", async () => {
    const prefix = uniqueRedisPrefix("memory-archive");
    const url = `${TEST_REDIS_URL}/?prefix=${prefix}`;
    const stores: Store[] = [];
    return {
      open: async () => {
        const store = await openStore(url, { logger: silentLogger });
        stores.push(store);
        return openArchiveStore(store, url);
      },
      cleanup: async () => {
        for (const store of stores) await store.close();
        await removeRedisKeys(prefix);
      },
    };
  });
});

defineArchiveStoreSuite("memory (keyv scan)", async () => {
  const store = await openStore("memory://");
  return { open: async () => openArchiveStore(store, "memory://"), cleanup: () => store.close() };
});

describe("openArchiveStore", () => {
  it("uses FTS5 tables in the SQLite file and keyv for everything else", async () => {
    const directory = await tempDirectory();
    const url = `sqlite://${join(directory.path, "a.db")}`;
    const store = await openStore(url, { logger: silentLogger });
    const sqlite = openArchiveStore(store, url);
    expect(sqlite).toBeInstanceOf(SqliteArchiveStore);
    await sqlite.close();
    await store.close();
    await directory.remove();
    const memory = await openStore("memory://");
    expect(openArchiveStore(memory, "memory://")).toBeInstanceOf(KeyvArchiveStore);
  });
});

describe("workspaceOf", () => {
  it.each([
    ["slack:T1:C2:1700.1", "slack:T1"],
    ["discord:G1:C2:T3", "discord:G1"],
    ["matrix:!room%3Ahs:$root", "matrix:!room%3Ahs"],
    ["console:main", "console:main"],
  ])("%s → %s", (key, workspace) => {
    expect(workspaceOf(key)).toBe(workspace);
  });
});
