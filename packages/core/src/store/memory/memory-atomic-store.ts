import { randomUUID } from "node:crypto";
import { assertValidTtl } from "../ttl.ts";
import type { AtomicStore, LockedQueue, QueueEntry, QueueInput } from "../types.ts";

interface Queued extends QueueEntry {
  readonly order: number;
}

interface Expiring {
  readonly value: string;
  readonly expiresAt: number;
}

/**
 * In-process AtomicStore for tests and single-process experiments. Every method completes
 * synchronously before its promise settles, which is what makes each one atomic here.
 */
export class MemoryAtomicStore implements AtomicStore {
  readonly #now: () => number;
  readonly #onceKeys = new Map<string, Expiring>();
  readonly #locks = new Map<string, Expiring>();
  readonly #queues = new Map<string, Queued[]>();
  #nextId = 0;
  #writesSinceSweep = 0;

  constructor(options: { now?: () => number } = {}) {
    this.#now = options.now ?? Date.now;
  }

  async setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean> {
    assertValidTtl(ttlMs);
    if (this.#live(this.#onceKeys, key)) return false;
    this.#onceKeys.set(key, { value, expiresAt: this.#now() + ttlMs });
    this.#sweepOccasionally();
    return true;
  }

  async acquireLock(key: string, ttlMs: number): Promise<string | null> {
    assertValidTtl(ttlMs);
    if (this.#live(this.#locks, key)) return null;
    const token = randomUUID();
    this.#locks.set(key, { value: token, expiresAt: this.#now() + ttlMs });
    this.#sweepOccasionally();
    return token;
  }

  async acquireLockAndPeek(key: string, queue: string, ttlMs: number): Promise<LockedQueue | null> {
    const token = await this.acquireLock(key, ttlMs);
    return token === null ? null : { token, head: await this.peek(queue) };
  }

  async extendLock(key: string, token: string, ttlMs: number): Promise<boolean> {
    assertValidTtl(ttlMs);
    if (this.#live(this.#locks, key)?.value !== token) return false;
    this.#locks.set(key, { value: token, expiresAt: this.#now() + ttlMs });
    return true;
  }

  async releaseLock(key: string, token: string): Promise<boolean> {
    if (this.#live(this.#locks, key)?.value !== token) return false;
    this.#locks.delete(key);
    return true;
  }

  async marks(keys: readonly string[]): Promise<Array<string | undefined>> {
    return keys.map((key) => this.#live(this.#onceKeys, key)?.value);
  }

  async renewMark(key: string, value: string, ttlMs: number): Promise<boolean> {
    assertValidTtl(ttlMs);
    if (this.#live(this.#onceKeys, key)?.value !== value) return false;
    this.#onceKeys.set(key, { value, expiresAt: this.#now() + ttlMs });
    return true;
  }

  async takeMark(key: string): Promise<boolean> {
    const present = this.#live(this.#onceKeys, key) !== undefined;
    this.#onceKeys.delete(key);
    return present;
  }

  async enqueue(queue: string, entry: QueueInput): Promise<boolean> {
    if (entry.dedupe) {
      assertValidTtl(entry.dedupe.ttlMs);
      if (this.#live(this.#onceKeys, entry.dedupe.key)) return false;
      this.#onceKeys.set(entry.dedupe.key, { value: "1", expiresAt: this.#now() + entry.dedupe.ttlMs });
      this.#sweepOccasionally();
    }
    const queued: Queued = { id: String(++this.#nextId), item: entry.item, order: entry.order };
    const items = this.#queues.get(queue) ?? [];
    // After every entry of the same or an earlier order: ties keep arrival order.
    const at = items.findIndex((existing) => existing.order > entry.order);
    items.splice(at === -1 ? items.length : at, 0, queued);
    this.#queues.set(queue, items);
    return true;
  }

  async peek(queue: string): Promise<QueueEntry | null> {
    const first = this.#queues.get(queue)?.[0];
    return first ? { id: first.id, item: first.item } : null;
  }

  async ack(queue: string, id: string): Promise<number> {
    const items = this.#queues.get(queue);
    if (!items) return 0;
    const at = items.findIndex((entry) => entry.id === id);
    if (at !== -1) items.splice(at, 1);
    if (items.length === 0) this.#queues.delete(queue);
    return items.length;
  }

  async ackAndReleaseIfEmpty(queue: string, id: string, lockKey: string, token: string): Promise<number> {
    const remaining = await this.ack(queue, id);
    if (remaining === 0) await this.releaseLock(lockKey, token);
    return remaining;
  }

  async peekAll(queue: string): Promise<QueueEntry[]> {
    return (this.#queues.get(queue) ?? []).map(({ id, item }) => ({ id, item }));
  }

  async queueLength(queue: string): Promise<number> {
    return this.#queues.get(queue)?.length ?? 0;
  }

  async nonEmptyQueues(): Promise<string[]> {
    return [...this.#queues.keys()];
  }

  /** The entry under `key` unless it has expired; expired entries are dropped on sight. */
  #live(entries: Map<string, Expiring>, key: string): Expiring | undefined {
    const entry = entries.get(key);
    if (entry === undefined || entry.expiresAt > this.#now()) return entry;
    entries.delete(key);
    return undefined;
  }

  /** Keys nobody asks for again (most dedupe keys) would otherwise stay forever. */
  #sweepOccasionally(): void {
    if (++this.#writesSinceSweep < 1000) return;
    this.#writesSinceSweep = 0;
    const now = this.#now();
    for (const entries of [this.#onceKeys, this.#locks]) {
      for (const [key, entry] of entries) if (entry.expiresAt <= now) entries.delete(key);
    }
  }
}
