import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { createClient } from "@redis/client";
import type Keyv from "keyv";
import { describe, inject } from "vitest";
import { silentLogger } from "../runtime/logger.ts";
import { openStore } from "./open-store.ts";
import type { Store } from "./types.ts";

declare module "vitest" {
  interface ProvidedContext {
    /** The test run's Redis (test/services/global-setup.ts); empty when it has none. */
    testRedisUrl: string;
  }
}

/**
 * The Redis this test run uses (`redis://host:port`, no database path): the private one the global
 * setup started (test/services/), or the developer's own named by SWITCHBOARD_TEST_REDIS_URL.
 * Other suites use it at the same time. Never a Redis nobody pointed the tests at.
 */
const givenRedisUrl = inject("testRedisUrl") || undefined;

/** Whether this run has a Redis; without one the Redis tests are skipped (the global setup says why). */
export const TEST_REDIS_AVAILABLE = givenRedisUrl !== undefined;

/** Port 1 refuses at once: a test that forgets to skip without Redis fails fast and touches nothing. */
export const TEST_REDIS_URL: string = givenRedisUrl ?? "redis://127.0.0.1:1";

/** `describe`, skipped when this run has no Redis. */
export const describeWithRedis = describe.skipIf(!TEST_REDIS_AVAILABLE);

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

/** Deletes every key under `prefix` (and only those) from the test Redis. */
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

/**
 * Memory, a temporary SQLite file and the test Redis under a fresh prefix, for suites run on all
 * three (Redis left out when this run has none).
 */
export function testStoreBackends(label: string): Array<[string, () => Promise<TestStore>]> {
  const backends: Array<[string, () => Promise<TestStore>]> = [
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
  return TEST_REDIS_AVAILABLE ? backends : backends.filter(([name]) => name !== "redis");
}

/**
 * Counts the `get`s on the keyv of one namespace from now on (what a write path reads back). A
 * store may hand out the same keyv for the same prefix again: each is counted once.
 */
export function countNamespaceGets(store: Store, prefix: string): { readonly reads: () => number } {
  const counted = countNamespaceCalls(store, prefix, "get");
  return { reads: counted.calls };
}

/** Counts calls of one keyv method on the namespace `prefix` of `store` from now on. */
export function countNamespaceCalls(
  store: Store,
  prefix: string,
  method: "get" | "getMany" | "set",
): { readonly calls: () => number } {
  let calls = 0;
  const counted = new WeakSet<object>();
  const namespace = store.namespace.bind(store);
  store.namespace = <Value>(name: string): Keyv<Value> => {
    const keyv = namespace<Value>(name);
    if (name !== prefix || counted.has(keyv)) return keyv;
    counted.add(keyv);
    const original = keyv[method].bind(keyv) as (...args: unknown[]) => unknown;
    (keyv as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
      calls += 1;
      return original(...args);
    };
    return keyv;
  };
  return { calls: () => calls };
}
