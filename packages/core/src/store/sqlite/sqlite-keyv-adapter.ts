import { EventEmitter } from "node:events";
import type { DatabaseSync, SQLOutputValue, StatementSync } from "node:sqlite";
import type { KeyvStoreAdapter, StoredData } from "keyv";
import { SqliteCommitGroup } from "./sqlite-commit-group.ts";
import { inImmediateTransaction, textColumn as text } from "./sqlite-database.ts";

/**
 * keyv storage adapter over the embedded SQLite file. Values are stored exactly as keyv serialised
 * them. A row past its `expires_at` (by the injected clock) counts as absent at once and is deleted
 * on sight or by the store's periodic purge. One adapter instance serves one namespace: keyv writes
 * its namespace onto the adapter, so sharing an instance between namespaces would mix them up.
 */
export class SqliteKeyvAdapter extends EventEmitter implements KeyvStoreAdapter {
  /** keyv reads `dialect` to decide that this adapter can iterate. */
  readonly opts: { readonly dialect: "sqlite"; readonly url: string };
  namespace?: string | undefined;
  readonly #db: DatabaseSync;
  readonly #now: () => number;
  readonly #sql: ReturnType<typeof prepareStatements>;
  readonly #commits: SqliteCommitGroup;

  constructor(
    db: DatabaseSync,
    options: { url: string; namespace?: string; now?: () => number; commits?: SqliteCommitGroup },
  ) {
    super();
    this.#db = db;
    this.opts = { dialect: "sqlite", url: options.url };
    this.namespace = options.namespace;
    this.#now = options.now ?? Date.now;
    this.#sql = prepareStatements(db);
    this.#commits = options.commits ?? new SqliteCommitGroup(db);
  }

  get<Value>(key: string): Promise<StoredData<Value> | undefined> {
    // keyv hands adapters serialised strings and parses what they return; its types cannot say so.
    return this.#commits.run(() => this.#read(key) as StoredData<Value> | undefined, false);
  }

  getMany<Value>(keys: string[]): Promise<Array<StoredData<Value | undefined>>> {
    return this.#commits.run(
      () => keys.map((key) => this.#read(key) as StoredData<Value | undefined>),
      false,
    );
  }

  has(key: string): Promise<boolean> {
    return this.#commits.run(() => this.#read(key) !== undefined, false);
  }

  hasMany(keys: string[]): Promise<boolean[]> {
    return this.#commits.run(() => keys.map((key) => this.#read(key) !== undefined), false);
  }

  set(key: string, value: string, ttl?: number): Promise<boolean> {
    return this.#commits.run(() => {
      this.#sql.upsert.run(this.#ns, key, value, this.#expiresAt(ttl));
      return true;
    });
  }

  setMany(entries: Array<{ key: string; value: string; ttl?: number }>): Promise<void> {
    return this.#commits.run(() =>
      inImmediateTransaction(this.#db, () => {
        for (const { key, value, ttl } of entries) {
          this.#sql.upsert.run(this.#ns, key, value, this.#expiresAt(ttl));
        }
      }),
    );
  }

  /** True when a live entry was deleted (an already-expired one counts as absent). */
  delete(key: string): Promise<boolean> {
    return this.#commits.run(() => this.#deleteOne(key));
  }

  /** True when at least one live entry was deleted. */
  deleteMany(keys: string[]): Promise<boolean> {
    return this.#commits.run(() =>
      inImmediateTransaction(this.#db, () =>
        keys.map((key) => this.#deleteOne(key)).some((deleted) => deleted),
      ),
    );
  }

  /** Empties this adapter's namespace only. */
  async clear(): Promise<void> {
    this.#sql.clear.run(this.#ns);
  }

  async *iterator<Value>(
    namespace?: string,
  ): AsyncGenerator<Array<string | Awaited<Value> | undefined>, void> {
    const rows = this.#sql.live.all(namespace ?? this.#ns, this.#now());
    for (const row of rows) yield [text(row.key), text(row.value)];
  }

  /** Nothing to do: the database belongs to the store and closes with it. */
  async disconnect(): Promise<void> {}

  get #ns(): string {
    return this.namespace ?? "";
  }

  #expiresAt(ttl: number | undefined): number | null {
    return typeof ttl === "number" && ttl > 0 ? this.#now() + ttl : null;
  }

  #deleteOne(key: string): boolean {
    const row = this.#sql.delete.get(this.#ns, key);
    return row !== undefined && !this.#expired(row.expires_at);
  }

  #expired(expiresAt: SQLOutputValue | undefined): boolean {
    return typeof expiresAt === "number" && expiresAt <= this.#now();
  }

  #read(key: string): string | undefined {
    const row = this.#sql.select.get(this.#ns, key);
    if (row === undefined) return undefined;
    if (this.#expired(row.expires_at)) {
      this.#sql.deleteIfExpired.run(this.#ns, key, this.#now());
      return undefined;
    }
    return text(row.value);
  }
}

function prepareStatements(db: DatabaseSync) {
  const prepare = (sql: string): StatementSync => db.prepare(sql);
  return {
    select: prepare("SELECT value, expires_at FROM kv_entries WHERE namespace = ? AND key = ?"),
    live: prepare(`
      SELECT key, value FROM kv_entries
      WHERE namespace = ? AND (expires_at IS NULL OR expires_at > ?) ORDER BY key`),
    upsert: prepare(`
      INSERT INTO kv_entries (namespace, key, value, expires_at) VALUES (?, ?, ?, ?)
      ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at`),
    delete: prepare("DELETE FROM kv_entries WHERE namespace = ? AND key = ? RETURNING expires_at"),
    // Re-checks expiry so a concurrent writer's fresh value is never deleted by a stale read.
    deleteIfExpired: prepare("DELETE FROM kv_entries WHERE namespace = ? AND key = ? AND expires_at <= ?"),
    clear: prepare("DELETE FROM kv_entries WHERE namespace = ?"),
  };
}
