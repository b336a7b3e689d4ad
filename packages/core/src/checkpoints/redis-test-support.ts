import { randomUUID } from "node:crypto";
import { createClient, type RedisClientType } from "@redis/client";

/** The shared test server; tests keep to their own key prefix and never flush. */
export const TEST_REDIS_URL = "redis://127.0.0.1:6379";

export async function connectTestRedis(): Promise<RedisClientType> {
  const client: RedisClientType = createClient({ url: TEST_REDIS_URL });
  await client.connect();
  return client;
}

export function uniqueTestPrefix(label: string): string {
  return `switchboard-test:${label}:${randomUUID()}:`;
}

/** Every key under `prefix` (the prefix holds no glob characters). Test files only. */
export async function keysUnder(client: RedisClientType, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const batch of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 500 })) keys.push(...batch);
  return keys;
}

export async function deleteKeysUnder(client: RedisClientType, prefix: string): Promise<void> {
  const keys = await keysUnder(client, prefix);
  for (let i = 0; i < keys.length; i += 500) await client.del(keys.slice(i, i + 500));
}

/** Bytes Redis spends on every key under `prefix` (MEMORY USAGE, all nested values sampled). */
export async function memoryUnder(client: RedisClientType, prefix: string): Promise<number> {
  let total = 0;
  for (const key of await keysUnder(client, prefix))
    total += (await client.memoryUsage(key, { SAMPLES: 0 })) ?? 0;
  return total;
}
