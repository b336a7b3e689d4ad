import { randomUUID } from "node:crypto";
import { assertValidTtl } from "../ttl.ts";
import type { AtomicStore, LockedQueue, QueueEntry, QueueInput } from "../types.ts";
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
// A queue is a sorted set scored by order. Members are "<arrival sequence>:<item>": the zero-padded
// sequence keeps ties in arrival order (equal scores sort by member) and makes equal items distinct.
const ENQUEUE = luaScript(`
  if ARGV[4] ~= "" then
    if not redis.call("SET", ARGV[4], "1", "NX", "PX", ARGV[5]) then return 0 end
  end
  local sequence = redis.call("INCR", KEYS[3])
  redis.call("ZADD", KEYS[1], ARGV[1], string.format("%016d", sequence) .. ":" .. ARGV[2])
  redis.call("SADD", KEYS[2], ARGV[3])
  return 1`);
const ACK = luaScript(`
  redis.call("ZREM", KEYS[1], ARGV[1])
  local remaining = redis.call("ZCARD", KEYS[1])
  if remaining == 0 then redis.call("SREM", KEYS[2], ARGV[2]) end
  return remaining`);
const ACK_AND_RELEASE_IF_EMPTY = luaScript(`
  redis.call("ZREM", KEYS[1], ARGV[1])
  local remaining = redis.call("ZCARD", KEYS[1])
  if remaining == 0 then
    redis.call("SREM", KEYS[2], ARGV[2])
    if redis.call("GET", KEYS[3]) == ARGV[3] then redis.call("DEL", KEYS[3]) end
  end
  return remaining`);
// 0 when the lock is held elsewhere; else the queue's first member as a list (empty: no work).
const LOCK_AND_PEEK = luaScript(`
  if not redis.call("SET", KEYS[1], ARGV[1], "NX", "PX", ARGV[2]) then return 0 end
  return redis.call("ZRANGE", KEYS[2], 0, 0)`);
// Earlier versions kept each queue as a list under "queue:<name>"; moved into the sorted set in
// their original order (scored 0, so they come before anything queued since).
const MIGRATE_LIST = luaScript(`
  if redis.call("TYPE", KEYS[1]).ok ~= "list" then return 0 end
  local items = redis.call("LRANGE", KEYS[1], 0, -1)
  for _, item in ipairs(items) do
    local sequence = redis.call("INCR", KEYS[3])
    redis.call("ZADD", KEYS[2], 0, string.format("%016d", sequence) .. ":" .. item)
  end
  redis.call("DEL", KEYS[1])
  return #items`);

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

  async acquireLockAndPeek(key: string, queue: string, ttlMs: number): Promise<LockedQueue | null> {
    assertValidTtl(ttlMs);
    const token = randomUUID();
    const reply = await runLuaScript(
      this.#client,
      LOCK_AND_PEEK,
      [this.#lockKey(key), this.#queueKey(queue)],
      [token, `${ttlMs}`],
    );
    if (!Array.isArray(reply)) return null;
    const [member] = reply as unknown[];
    return { token, head: typeof member === "string" ? queueEntry(member) : null };
  }

  async extendLock(key: string, token: string, ttlMs: number): Promise<boolean> {
    assertValidTtl(ttlMs);
    const reply = await runLuaScript(this.#client, EXTEND_IF_HELD, [this.#lockKey(key)], [token, `${ttlMs}`]);
    return reply === 1;
  }

  async releaseLock(key: string, token: string): Promise<boolean> {
    return (await runLuaScript(this.#client, RELEASE_IF_HELD, [this.#lockKey(key)], [token])) === 1;
  }

  async marks(keys: readonly string[]): Promise<Array<string | undefined>> {
    if (keys.length === 0) return [];
    const values = await this.#client.mGet(keys.map((key) => `${this.#prefix}once:${key}`));
    return values.map((value) => value ?? undefined);
  }

  async renewMark(key: string, value: string, ttlMs: number): Promise<boolean> {
    assertValidTtl(ttlMs);
    const reply = await runLuaScript(
      this.#client,
      EXTEND_IF_HELD,
      [`${this.#prefix}once:${key}`],
      [value, `${ttlMs}`],
    );
    return reply === 1;
  }

  async takeMark(key: string): Promise<boolean> {
    return (await this.#client.del(`${this.#prefix}once:${key}`)) === 1;
  }

  async enqueue(queue: string, entry: QueueInput): Promise<boolean> {
    if (entry.dedupe) assertValidTtl(entry.dedupe.ttlMs);
    const dedupeKey = entry.dedupe ? `${this.#prefix}once:${entry.dedupe.key}` : "";
    const reply = await runLuaScript(
      this.#client,
      ENQUEUE,
      [this.#queueKey(queue), this.#queueIndexKey, `${this.#prefix}queue-sequence`],
      [`${entry.order}`, entry.item, queue, dedupeKey, `${entry.dedupe?.ttlMs ?? 0}`],
    );
    return reply === 1;
  }

  async peek(queue: string): Promise<QueueEntry | null> {
    const [member] = await this.#client.zRange(this.#queueKey(queue), 0, 0);
    return member === undefined ? null : queueEntry(member);
  }

  async ack(queue: string, id: string): Promise<number> {
    const reply = await runLuaScript(
      this.#client,
      ACK,
      [this.#queueKey(queue), this.#queueIndexKey],
      [id, queue],
    );
    return Number(reply);
  }

  async ackAndReleaseIfEmpty(queue: string, id: string, lockKey: string, token: string): Promise<number> {
    const reply = await runLuaScript(
      this.#client,
      ACK_AND_RELEASE_IF_EMPTY,
      [this.#queueKey(queue), this.#queueIndexKey, this.#lockKey(lockKey)],
      [id, queue, token],
    );
    return Number(reply);
  }

  async peekAll(queue: string): Promise<QueueEntry[]> {
    return (await this.#client.zRange(this.#queueKey(queue), 0, -1)).map(queueEntry);
  }

  /** Moves queues written by earlier versions (lists) into today's sorted sets; returns items moved. */
  async migrateListQueues(): Promise<number> {
    let moved = 0;
    for (const queue of await this.nonEmptyQueues()) {
      const reply = await runLuaScript(
        this.#client,
        MIGRATE_LIST,
        [`${this.#prefix}queue:${queue}`, this.#queueKey(queue), `${this.#prefix}queue-sequence`],
        [],
      );
      moved += Number(reply);
    }
    return moved;
  }

  async queueLength(queue: string): Promise<number> {
    return this.#client.zCard(this.#queueKey(queue));
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
    // "zqueue:" and not "queue:": earlier versions kept lists under "queue:", which a sorted-set
    // command would fail on. `migrateListQueues` moves those over at start.
    return `${this.#prefix}zqueue:${queue}`;
  }

  get #queueIndexKey(): string {
    return `${this.#prefix}queues`;
  }
}

function queueEntry(member: string): QueueEntry {
  return { id: member, item: member.slice(member.indexOf(":") + 1) };
}
