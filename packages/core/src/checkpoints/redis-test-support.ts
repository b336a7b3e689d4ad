import { randomUUID } from "node:crypto";
import { createClient, type RedisClientType } from "@redis/client";
import { TEST_REDIS_URL } from "../store/test-backends.ts";

export { describeWithRedis, TEST_REDIS_AVAILABLE, TEST_REDIS_URL } from "../store/test-backends.ts";

export async function connectTestRedis(): Promise<RedisClientType> {
  // Generous: concurrent graph runs can keep the event loop busy for seconds at a time.
  const client: RedisClientType = createClient({ url: TEST_REDIS_URL, socket: { connectTimeout: 30_000 } });
  await client.connect();
  return client;
}

/** Tests keep to their own key prefix and never flush. */
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

/**
 * Bytes stored under `prefix`: key names, hash fields and values, set and sorted-set members.
 * Counted from lengths rather than MEMORY USAGE, which for large hash values changes with the
 * allocator's state (the same content measured 552 kB once and 781 kB another time).
 */
export async function storedBytesUnder(client: RedisClientType, prefix: string): Promise<number> {
  let total = 0;
  for (const key of await keysUnder(client, prefix)) {
    total += Buffer.byteLength(key);
    const type = await client.type(key);
    if (type === "hash") {
      const fields = await client.hKeys(key);
      const lengths = await Promise.all(fields.map((field) => client.hStrLen(key, field)));
      total += fields.reduce((sum, field, i) => sum + Buffer.byteLength(field) + Number(lengths[i] ?? 0), 0);
    } else if (type === "set") {
      total += (await client.sMembers(key)).reduce((sum, member) => sum + Buffer.byteLength(member), 0);
    } else if (type === "zset") {
      total += (await client.zRange(key, 0, -1)).reduce(
        (sum, member) => sum + Buffer.byteLength(member) + 8,
        0,
      );
    } else if (type === "string") {
      total += await client.strLen(key);
    } else {
      throw new Error(`unexpected ${type} key ${key} under ${prefix}`);
    }
  }
  return total;
}
