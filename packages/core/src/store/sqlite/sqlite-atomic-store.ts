import { randomUUID } from "node:crypto";
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { assertValidTtl } from "../ttl.ts";
import type { AtomicStore } from "../types.ts";
import { inImmediateTransaction, textColumn as text } from "./sqlite-database.ts";

/**
 * AtomicStore over the embedded SQLite file. Each operation is one statement (atomic on its own,
 * also against other processes on the same file) except `drain`, which reads then deletes inside
 * `BEGIN IMMEDIATE`. Expiry compares against the injected clock, never SQLite's own time, so
 * tests can move time forward and every process agrees on what "expired" means.
 */
export class SqliteAtomicStore implements AtomicStore {
  readonly #now: () => number;
  readonly #db: DatabaseSync;
  readonly #sql: ReturnType<typeof prepareStatements>;

  constructor(db: DatabaseSync, options: { now?: () => number } = {}) {
    this.#db = db;
    this.#now = options.now ?? Date.now;
    this.#sql = prepareStatements(db);
  }

  async setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean> {
    assertValidTtl(ttlMs);
    const now = this.#now();
    return this.#sql.insertOnceUnlessLive.run(key, value, now + ttlMs, now).changes === 1;
  }

  async acquireLock(key: string, ttlMs: number): Promise<string | null> {
    assertValidTtl(ttlMs);
    const token = randomUUID();
    const now = this.#now();
    return this.#sql.takeLockUnlessLive.run(key, token, now + ttlMs, now).changes === 1 ? token : null;
  }

  async extendLock(key: string, token: string, ttlMs: number): Promise<boolean> {
    assertValidTtl(ttlMs);
    const now = this.#now();
    return this.#sql.extendLiveLock.run(now + ttlMs, key, token, now).changes === 1;
  }

  async releaseLock(key: string, token: string): Promise<boolean> {
    return this.#sql.deleteLiveLock.run(key, token, this.#now()).changes === 1;
  }

  async enqueue(queue: string, item: string): Promise<void> {
    this.#sql.enqueue.run(queue, item);
  }

  async peek(queue: string): Promise<string | null> {
    const row = this.#sql.oldest.get(queue);
    return row === undefined ? null : text(row.item);
  }

  async ack(queue: string): Promise<void> {
    this.#sql.deleteOldest.run(queue);
  }

  async drain(queue: string): Promise<string[]> {
    return inImmediateTransaction(this.#db, () => {
      const items = this.#sql.allInOrder.all(queue).map((row) => text(row.item));
      this.#sql.deleteQueue.run(queue);
      return items;
    });
  }

  async queueLength(queue: string): Promise<number> {
    return Number(this.#sql.count.get(queue)?.count ?? 0);
  }

  async nonEmptyQueues(): Promise<string[]> {
    return this.#sql.queueNames.all().map((row) => text(row.queue));
  }
}

function prepareStatements(db: DatabaseSync) {
  const prepare = (sql: string): StatementSync => db.prepare(sql);
  return {
    // The upsert only overwrites a row whose expiry has passed, so `changes` is 1 exactly when we won.
    insertOnceUnlessLive: prepare(`
      INSERT INTO atomic_once (key, value, expires_at) VALUES (?1, ?2, ?3)
      ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at
      WHERE atomic_once.expires_at <= ?4`),
    takeLockUnlessLive: prepare(`
      INSERT INTO atomic_locks (key, token, expires_at) VALUES (?1, ?2, ?3)
      ON CONFLICT (key) DO UPDATE SET token = excluded.token, expires_at = excluded.expires_at
      WHERE atomic_locks.expires_at <= ?4`),
    extendLiveLock: prepare(
      "UPDATE atomic_locks SET expires_at = ?1 WHERE key = ?2 AND token = ?3 AND expires_at > ?4",
    ),
    deleteLiveLock: prepare("DELETE FROM atomic_locks WHERE key = ?1 AND token = ?2 AND expires_at > ?3"),
    enqueue: prepare("INSERT INTO atomic_queue_items (queue, item) VALUES (?, ?)"),
    oldest: prepare("SELECT item FROM atomic_queue_items WHERE queue = ? ORDER BY id LIMIT 1"),
    deleteOldest: prepare(`
      DELETE FROM atomic_queue_items
      WHERE id = (SELECT id FROM atomic_queue_items WHERE queue = ? ORDER BY id LIMIT 1)`),
    allInOrder: prepare("SELECT item FROM atomic_queue_items WHERE queue = ? ORDER BY id"),
    deleteQueue: prepare("DELETE FROM atomic_queue_items WHERE queue = ?"),
    count: prepare("SELECT count(*) AS count FROM atomic_queue_items WHERE queue = ?"),
    queueNames: prepare("SELECT DISTINCT queue FROM atomic_queue_items ORDER BY queue"),
  };
}
