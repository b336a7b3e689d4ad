import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { createClient } from "@redis/client";
import { afterEach, describe, expect, it } from "vitest";
import { createMemoryLogger, silentLogger } from "../runtime/logger.ts";
import { StoreConnectionError } from "./errors.ts";
import { openStore } from "./open-store.ts";
import type { RedisConnection } from "./redis/redis-connection.ts";
import {
  removeRedisKeys,
  TEST_REDIS_AVAILABLE,
  TEST_REDIS_URL,
  tempDirectory,
  uniqueRedisPrefix,
} from "./test-backends.ts";
import { type Store, StoreUrlError } from "./types.ts";

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function opened(url: string, options: Parameters<typeof openStore>[1] = {}): Promise<Store> {
  const store = await openStore(url, { logger: silentLogger, ...options });
  cleanups.push(() => store.close());
  return store;
}

describe("openStore with SQLite", () => {
  it("resolves a relative path against the working directory and creates its folders", async () => {
    const directory = await tempDirectory();
    cleanups.push(() => directory.remove());
    const store = await opened("sqlite://./data/nested/switchboard.db", { cwd: directory.path });
    const file = join(directory.path, "data", "nested", "switchboard.db");
    expect(existsSync(file)).toBe(true);
    expect(store.description).toBe(`sqlite://${file}`);
  });

  it("works entirely in memory with sqlite::memory:", async () => {
    const store = await opened("sqlite::memory:");
    expect(await store.atomic.setIfAbsent("k", "v", 1_000)).toBe(true);
    await store.namespace<number>("n").set("k", 1);
    expect(await store.namespace<number>("n").get("k")).toBe(1);
    expect(store.description).toBe("sqlite::memory:");
  });

  it("names the file and what to check when it cannot be opened", async () => {
    const directory = await tempDirectory();
    cleanups.push(() => directory.remove());
    const notAFolder = join(directory.path, "plain-file");
    await writeFile(notAFolder, "");
    const attempt = openStore(`sqlite://${join(notAFolder, "switchboard.db")}`);
    await expect(attempt).rejects.toThrow(StoreConnectionError);
    await expect(attempt).rejects.toThrow(`(${join(notAFolder, "switchboard.db")})`);
    await expect(attempt).rejects.toThrow("check that the folder exists");
  });

  it("refuses a file that is not a SQLite database", async () => {
    const directory = await tempDirectory();
    cleanups.push(() => directory.remove());
    const file = join(directory.path, "notes.txt");
    await writeFile(file, "these are not the tables you are looking for".repeat(100));
    await expect(openStore(`sqlite://${file}`)).rejects.toThrow(/not a database.*check/);
  });
});

describe("openStore with Redis", () => {
  it("names the host and what to check when Redis is unreachable", async () => {
    const attempt = openStore("redis://:hunter2@127.0.0.1:1");
    await expect(attempt).rejects.toThrow(StoreConnectionError);
    await expect(attempt).rejects.toThrow("could not connect to Redis (127.0.0.1:1)");
    await expect(attempt).rejects.toThrow("check that Redis is running");
    await expect(attempt).rejects.not.toThrow("hunter2");
  });

  it.skipIf(!TEST_REDIS_AVAILABLE)("serves keyv namespaces and atomics over one connection", async () => {
    const prefix = uniqueRedisPrefix("one-client");
    cleanups.push(() => removeRedisKeys(prefix));
    const store = await opened(`${TEST_REDIS_URL}?prefix=${prefix}`);
    for (const name of ["a", "b", "c"]) await store.namespace<string>(name).set("k", name);
    await store.atomic.enqueue("q", { item: "item", order: 0 });
    expect(await store.namespace<string>("b").get("k")).toBe("b");
    expect(await connectionsNamed(`switchboard@${prefix}`)).toBe(1);
  });

  it.skipIf(!TEST_REDIS_AVAILABLE)("keeps every key under its prefix", async () => {
    const prefix = uniqueRedisPrefix("prefix");
    cleanups.push(() => removeRedisKeys(prefix));
    const store = await opened(`${TEST_REDIS_URL}?prefix=${prefix}`);
    await store.namespace<string>("sessions").set("s1", "x");
    await store.atomic.setIfAbsent("event-1", "1", 10_000);
    await store.atomic.acquireLock("thread", 10_000);
    await store.atomic.enqueue("inbox", { item: "m", order: 0 });
    expect(await removeRedisKeys(prefix)).toBe(7); // epoch, kv, once, lock, queue, queue index, queue sequence
  });

  it.skipIf(!TEST_REDIS_AVAILABLE)(
    "moves queues an earlier version kept as lists into today's ordered queues, in order",
    async () => {
      const prefix = uniqueRedisPrefix("list-queues");
      cleanups.push(() => removeRedisKeys(prefix));
      const client = createClient({ url: TEST_REDIS_URL });
      await client.connect();
      await client.rPush(`${prefix}queue:inbox`, ["first", "second"]);
      await client.sAdd(`${prefix}queues`, "inbox");
      await client.close();
      const store = await opened(`${TEST_REDIS_URL}?prefix=${prefix}`);
      await store.atomic.enqueue("inbox", { item: "queued after the upgrade", order: Date.now() });
      expect((await store.atomic.peekAll("inbox")).map((entry) => entry.item)).toEqual([
        "first",
        "second",
        "queued after the upgrade",
      ]);
    },
  );

  it.skipIf(!TEST_REDIS_AVAILABLE)(
    "reports a dropped connection to the logger and carries on after reconnecting",
    async () => {
      const prefix = uniqueRedisPrefix("reconnect");
      cleanups.push(() => removeRedisKeys(prefix));
      const logger = createMemoryLogger();
      const store = await opened(`${TEST_REDIS_URL}?prefix=${prefix}`, { logger });
      await killConnectionsNamed(`switchboard@${prefix}`);
      await sleep(50);
      expect(await store.atomic.setIfAbsent("after-drop", "1", 10_000)).toBe(true);
      expect(logger.lines).toContainEqual(
        expect.objectContaining({
          level: "error",
          message: `Redis connection to ${new URL(TEST_REDIS_URL).host} failed`,
        }),
      );
    },
  );
});

describe("openStore with other URLs", () => {
  it("opens memory:// for tests", async () => {
    const store = await opened("memory://");
    expect(store.description).toBe("memory://");
    expect(await store.atomic.acquireLock("k", 1_000)).toEqual(expect.any(String));
  });

  it.each(["postgres://localhost/switchboard", "./data/switchboard.db", "mongodb://x"])(
    "rejects %s with the accepted forms",
    async (url) => {
      await expect(openStore(url)).rejects.toThrow(StoreUrlError);
      await expect(openStore(url)).rejects.toThrow("expected sqlite://");
    },
  );
});

async function withAdminClient<Result>(work: (client: RedisConnection) => Promise<Result>): Promise<Result> {
  const client: RedisConnection = createClient({ url: TEST_REDIS_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.close();
  }
}

async function connectionsNamed(name: string): Promise<number> {
  const list = await withAdminClient((client) => client.clientList());
  return list.filter((entry) => entry.name === name).length;
}

async function killConnectionsNamed(name: string): Promise<void> {
  await withAdminClient(async (client) => {
    for (const entry of await client.clientList()) {
      if (entry.name === name) await client.clientKill({ filter: "ID", id: Number(entry.id) });
    }
  });
}
