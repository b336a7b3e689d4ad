import { randomUUID } from "node:crypto";
import { assertValidTtl } from "../ttl.ts";
import type { AtomicStore } from "../types.ts";
import { luaScript, runLuaScript } from "./lua-script.ts";
import type { RedisConnection } from "./redis-connection.ts";

// Token checks and queue bookkeeping run as Lua so that no other client can act between the
// check and the write: a lock that expired and was re-taken must not be extended or freed by
// its old holder, and the set of non-empty queues must never disagree with the lists.
const EXTEND_IF_HELD = luaScript(`
  if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("PEXPIRE", KEYS[1], ARGV[2]) end
  return 0`);
const RELEASE_IF_HELD = luaScript(`
  if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end
  return 0`);
const ENQUEUE = luaScript(`
  redis.call("RPUSH", KEYS[1], ARGV[1])
  redis.call("SADD", KEYS[2], ARGV[2])
  return 1`);
const ACK = luaScript(`
  redis.call("LPOP", KEYS[1])
  if redis.call("LLEN", KEYS[1]) == 0 then redis.call("SREM", KEYS[2], ARGV[1]) end
  return 1`);
const DRAIN = luaScript(`
  local items = redis.call("LRANGE", KEYS[1], 0, -1)
  redis.call("DEL", KEYS[1])
  redis.call("SREM", KEYS[2], ARGV[1])
  return items`);

/**
 * AtomicStore on Redis. Keys live under `keyPrefix` (`<prefix>once:…`, `<prefix>lock:…`,
 * `<prefix>queue:…`, and the set `<prefix>queues`), so several deployments or test runs can share
 * one server. TTLs are Redis's own PX expiries, so every worker agrees on them.
 */
export class RedisAtomicStore implements AtomicStore {
  readonly #client: RedisConnection;
  readonly #prefix: string;

  constructor(client: RedisConnection, keyPrefix: string) {
    this.#client = client;
    this.#prefix = keyPrefix;
  }

  async setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean> {
    assertValidTtl(ttlMs);
    return (await this.#setNx(`${this.#prefix}once:${key}`, value, ttlMs)) !== null;
  }

  async acquireLock(key: string, ttlMs: number): Promise<string | null> {
    assertValidTtl(ttlMs);
    const token = randomUUID();
    return (await this.#setNx(this.#lockKey(key), token, ttlMs)) === null ? null : token;
  }

  async extendLock(key: string, token: string, ttlMs: number): Promise<boolean> {
    assertValidTtl(ttlMs);
    const reply = await runLuaScript(this.#client, EXTEND_IF_HELD, [this.#lockKey(key)], [token, `${ttlMs}`]);
    return reply === 1;
  }

  async releaseLock(key: string, token: string): Promise<boolean> {
    return (await runLuaScript(this.#client, RELEASE_IF_HELD, [this.#lockKey(key)], [token])) === 1;
  }

  async enqueue(queue: string, item: string): Promise<void> {
    await runLuaScript(this.#client, ENQUEUE, [this.#queueKey(queue), this.#queueIndexKey], [item, queue]);
  }

  async peek(queue: string): Promise<string | null> {
    return this.#client.lIndex(this.#queueKey(queue), 0);
  }

  async ack(queue: string): Promise<void> {
    await runLuaScript(this.#client, ACK, [this.#queueKey(queue), this.#queueIndexKey], [queue]);
  }

  async drain(queue: string): Promise<string[]> {
    const reply = await runLuaScript(
      this.#client,
      DRAIN,
      [this.#queueKey(queue), this.#queueIndexKey],
      [queue],
    );
    return stringArray(reply);
  }

  async queueLength(queue: string): Promise<number> {
    return this.#client.lLen(this.#queueKey(queue));
  }

  async nonEmptyQueues(): Promise<string[]> {
    return (await this.#client.sMembers(this.#queueIndexKey)).sort();
  }

  #setNx(key: string, value: string, ttlMs: number): Promise<string | null> {
    return this.#client.set(key, value, { condition: "NX", expiration: { type: "PX", value: ttlMs } });
  }

  #lockKey(key: string): string {
    return `${this.#prefix}lock:${key}`;
  }

  #queueKey(queue: string): string {
    return `${this.#prefix}queue:${queue}`;
  }

  get #queueIndexKey(): string {
    return `${this.#prefix}queues`;
  }
}

function stringArray(reply: unknown): string[] {
  if (!Array.isArray(reply) || !reply.every((item) => typeof item === "string")) {
    throw new TypeError(`unexpected reply from Redis: ${JSON.stringify(reply)}`);
  }
  return reply;
}
