import { randomUUID } from "node:crypto";
import { createClient, type RedisClientType } from "@redis/client";

export const BENCH_REDIS = "redis://127.0.0.1:6379";

/** A key prefix no one else uses; every key the benchmark writes on Redis starts with it. */
export function uniqueRedisPrefix(label: string): string {
  return `switchboard-bench:${label}:${randomUUID()}:`;
}

export async function withRedisClient<T>(work: (client: RedisClientType) => Promise<T>): Promise<T> {
  const client: RedisClientType = createClient({ url: BENCH_REDIS });
  await client.connect();
  try {
    return await work(client);
  } finally {
    client.destroy();
  }
}

async function keysUnder(client: RedisClientType, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const batch of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 })) keys.push(...batch);
  return keys;
}

/** Deletes the benchmark's own keys (never anything outside `prefix`); returns how many went. */
export function deleteKeysUnder(prefix: string): Promise<number> {
  return withRedisClient(async (client) => {
    const keys = await keysUnder(client, prefix);
    for (let i = 0; i < keys.length; i += 1000) await client.del(keys.slice(i, i + 1000));
    return keys.length;
  });
}
