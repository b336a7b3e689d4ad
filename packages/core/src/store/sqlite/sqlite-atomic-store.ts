import { randomUUID } from "node:crypto";
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { assertValidTtl } from "../ttl.ts";
import type { AtomicStore, LockedQueue, QueueEntry, QueueInput } from "../types.ts";
import { SqliteCommitGroup } from "./sqlite-commit-group.ts";
import { inImmediateTransaction, textColumn as text } from "./sqlite-database.ts";

/**
 * AtomicStore over the embedded SQLite file. Each operation is one statement (atomic on its own,
 * also against other processes on the same file) except deduplicated `enqueue`, `ack` and `ackAndReleaseIfEmpty`,
 * which run inside `BEGIN IMMEDIATE` (a savepoint when their commit group has the transaction open;
 * see sqlite-commit-group.ts). Expiry compares against the injected clock, never SQLite's own time, so
 * tests can move time forward and every process agrees on what "expired" means.
 */
export class SqliteAtomicStore implements AtomicStore {
  readonly #now: () => number;
  readonly #db: DatabaseSync;
  readonly #sql: ReturnType<typeof prepareStatements>;
  readonly #commits: SqliteCommitGroup;

  constructor(db: DatabaseSync, options: { now?: () => number; commits?: SqliteCommitGroup } = {}) {
    this.#db = db;
    this.#now = options.now ?? Date.now;
    this.#sql = prepareStatements(db);
    this.#commits = options.commits ?? new SqliteCommitGroup(db);
  }

  async setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean> {
    assertValidTtl(ttlMs);
    return this.#commits.run(() => {
      const now = this.#now();
      return this.#sql.insertOnceUnlessLive.run(key, value, now + ttlMs, now).changes === 1;
    });
  }

  async acquireLock(key: string, ttlMs: number): Promise<string | null> {
    assertValidTtl(ttlMs);
    return this.#commits.run(() => this.#takeLock(key, ttlMs));
  }

  async acquireLockAndPeek(key: string, queue: string, ttlMs: number): Promise<LockedQueue | null> {
    assertValidTtl(ttlMs);
    return this.#commits.run(() => {
      const token = this.#takeLock(key, ttlMs);
      return token === null ? null : { token, head: this.#first(queue) };
    });
  }

  #takeLock(key: string, ttlMs: number): string | null {
    const token = randomUUID();
    const now = this.#now();
    return this.#sql.takeLockUnlessLive.run(key, token, now + ttlMs, now).changes === 1 ? token : null;
  }

  async extendLock(key: string, token: string, ttlMs: number): Promise<boolean> {
    assertValidTtl(ttlMs);
    return this.#commits.run(() => {
      const now = this.#now();
      return this.#sql.extendLiveLock.run(now + ttlMs, key, token, now).changes === 1;
    });
  }

  releaseLock(key: string, token: string): Promise<boolean> {
    return this.#commits.run(() => this.#sql.deleteLiveLock.run(key, token, this.#now()).changes === 1);
  }

  marks(keys: readonly string[]): Promise<Array<string | undefined>> {
    return this.#commits.run(() => {
      const now = this.#now();
      return keys.map((key) => {
        const row = this.#sql.liveOnce.get(key, now);
        return row ? text(row.value) : undefined;
      });
    }, false);
  }

  async renewMark(key: string, value: string, ttlMs: number): Promise<boolean> {
    assertValidTtl(ttlMs);
    return this.#commits.run(() => {
      const now = this.#now();
      return this.#sql.renewLiveOnce.run(now + ttlMs, key, value, now).changes === 1;
    });
  }

  takeMark(key: string): Promise<boolean> {
    return this.#commits.run(() => this.#sql.deleteLiveOnce.run(key, this.#now()).changes === 1);
  }

  async enqueue(queue: string, entry: QueueInput): Promise<boolean> {
    const { dedupe } = entry;
    if (!dedupe)
      return this.#commits.run(() => {
        this.#sql.enqueue.run(queue, entry.item, entry.order);
        return true;
      });
    assertValidTtl(dedupe.ttlMs);
    return this.#commits.run(() =>
      inImmediateTransaction(this.#db, () => {
        const now = this.#now();
        if (this.#sql.insertOnceUnlessLive.run(dedupe.key, "1", now + dedupe.ttlMs, now).changes !== 1)
          return false;
        this.#sql.enqueue.run(queue, entry.item, entry.order);
        return true;
      }),
    );
  }

  peek(queue: string): Promise<QueueEntry | null> {
    return this.#commits.run(() => this.#first(queue), false);
  }

  #first(queue: string): QueueEntry | null {
    const row = this.#sql.first.get(queue);
    return row === undefined ? null : { id: String(row.id), item: text(row.item) };
  }

  ack(queue: string, id: string): Promise<number> {
    return this.#commits.run(() =>
      inImmediateTransaction(this.#db, () => {
        this.#sql.deleteEntry.run(queue, Number(id));
        return Number(this.#sql.count.get(queue)?.count ?? 0);
      }),
    );
  }

  ackAndReleaseIfEmpty(queue: string, id: string, lockKey: string, token: string): Promise<number> {
    return this.#commits.run(() =>
      inImmediateTransaction(this.#db, () => {
        this.#sql.deleteEntry.run(queue, Number(id));
        const remaining = Number(this.#sql.count.get(queue)?.count ?? 0);
        if (remaining === 0) this.#sql.deleteLiveLock.run(lockKey, token, this.#now());
        return remaining;
      }),
    );
  }

  peekAll(queue: string): Promise<QueueEntry[]> {
    return this.#commits.run(
      () => this.#sql.allInOrder.all(queue).map((row) => ({ id: String(row.id), item: text(row.item) })),
      false,
    );
  }

  queueLength(queue: string): Promise<number> {
    return this.#commits.run(() => Number(this.#sql.count.get(queue)?.count ?? 0), false);
  }

  nonEmptyQueues(): Promise<string[]> {
    return this.#commits.run(() => this.#sql.queueNames.all().map((row) => text(row.queue)), false);
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
    liveOnce: prepare("SELECT value FROM atomic_once WHERE key = ?1 AND expires_at > ?2"),
    renewLiveOnce: prepare(
      "UPDATE atomic_once SET expires_at = ?1 WHERE key = ?2 AND value = ?3 AND expires_at > ?4",
    ),
    deleteLiveOnce: prepare("DELETE FROM atomic_once WHERE key = ?1 AND expires_at > ?2"),
    enqueue: prepare("INSERT INTO atomic_queue_items (queue, item, position) VALUES (?, ?, ?)"),
    first: prepare("SELECT id, item FROM atomic_queue_items WHERE queue = ? ORDER BY position, id LIMIT 1"),
    deleteEntry: prepare("DELETE FROM atomic_queue_items WHERE queue = ? AND id = ?"),
    allInOrder: prepare("SELECT id, item FROM atomic_queue_items WHERE queue = ? ORDER BY position, id"),
    count: prepare("SELECT count(*) AS count FROM atomic_queue_items WHERE queue = ?"),
    queueNames: prepare("SELECT DISTINCT queue FROM atomic_queue_items ORDER BY queue"),
  };
}
