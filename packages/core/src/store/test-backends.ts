import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { createClient } from "@redis/client";
import { silentLogger } from "../runtime/logger.ts";
import { openStore } from "./open-store.ts";
import type { Store } from "./types.ts";

/** The shared Redis the test machine runs; other suites use it at the same time. */
export const TEST_REDIS_URL = "redis://127.0.0.1:6379";

/** A clock tests move by hand, so TTLs can pass without waiting. */
export function fakeClock(start = Date.now()): { now: () => number; advance(ms: number): Promise<void> } {
  let current = start;
  return {
    now: () => current,
    advance: async (ms) => {
      current += ms;
    },
  };
}

export const realTime = { elapse: (ms: number): Promise<void> => sleep(ms) };

/** A fresh folder for SQLite files; `remove` deletes it with everything in it. */
export async function tempDirectory(): Promise<{ path: string; remove(): Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), "switchboard-store-"));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

/** A key prefix no other test run uses, so cleaning up can never touch anyone else's keys. */
export function uniqueRedisPrefix(label: string): string {
  return `sbtest:${label}:${randomUUID()}:`;
}

/** Deletes every key under `prefix` (and only those) from the shared test Redis. */
export async function removeRedisKeys(prefix: string): Promise<number> {
  if (!prefix.startsWith("sbtest:")) throw new Error(`refusing to delete keys outside sbtest:* (${prefix})`);
  const client = createClient({ url: TEST_REDIS_URL });
  await client.connect();
  try {
    let removed = 0;
    for await (const keys of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 500 })) {
      if (keys.length > 0) removed += await client.del(keys);
    }
    return removed;
  } finally {
    await client.close();
  }
}

/** A store opened for one test, and how to remove everything it wrote. */
export interface TestStore {
  readonly store: Store;
  cleanup(): Promise<void>;
}

/** Memory, a temporary SQLite file and the shared Redis under a fresh prefix, for suites run on all three. */
export function testStoreBackends(label: string): Array<[string, () => Promise<TestStore>]> {
  return [
    ["memory", async () => ({ store: await openStore("memory://"), cleanup: async () => {} })],
    [
      "sqlite",
      async () => {
        const directory = await tempDirectory();
        return {
          store: await openStore(`sqlite://${join(directory.path, "s.db")}`, { logger: silentLogger }),
          cleanup: directory.remove,
        };
      },
    ],
    [
      "redis",
      async () => {
        const prefix = uniqueRedisPrefix(label);
        return {
          store: await openStore(`${TEST_REDIS_URL}/?prefix=${prefix}`, { logger: silentLogger }),
          cleanup: async () => void (await removeRedisKeys(prefix)),
        };
      },
    ],
  ];
}
