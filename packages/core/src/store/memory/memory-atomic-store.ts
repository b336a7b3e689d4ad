import { randomUUID } from "node:crypto";
import { assertValidTtl } from "../ttl.ts";
import type { AtomicStore } from "../types.ts";

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
  readonly #queues = new Map<string, string[]>();
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

  async enqueue(queue: string, item: string): Promise<void> {
    const items = this.#queues.get(queue);
    if (items) items.push(item);
    else this.#queues.set(queue, [item]);
  }

  async peek(queue: string): Promise<string | null> {
    return this.#queues.get(queue)?.[0] ?? null;
  }

  async ack(queue: string): Promise<void> {
    const items = this.#queues.get(queue);
    items?.shift();
    if (items?.length === 0) this.#queues.delete(queue);
  }

  async drain(queue: string): Promise<string[]> {
    const items = this.#queues.get(queue) ?? [];
    this.#queues.delete(queue);
    return items;
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
