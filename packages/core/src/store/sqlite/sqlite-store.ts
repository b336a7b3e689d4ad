import type { DatabaseSync, StatementSync } from "node:sqlite";
import Keyv from "keyv";
import { runningAsIntake } from "../../runtime/event-loop.ts";
import { KEYV_OPTIONS } from "../keyv-json.ts";
import { keyvPerNamespace } from "../keyv-namespaces.ts";
import type { Store } from "../types.ts";
import { SqliteAtomicStore } from "./sqlite-atomic-store.ts";
import { SqliteCommitGroup } from "./sqlite-commit-group.ts";
import { openSqliteDatabase } from "./sqlite-database.ts";
import { SqliteKeyvAdapter } from "./sqlite-keyv-adapter.ts";
import { SqliteSortedSets } from "./sqlite-sorted-sets.ts";
import { checkpointInBackground, type WalCheckpointer } from "./wal-checkpointer.ts";

export interface SqliteStoreOptions {
  readonly description: string;
  readonly now?: () => number;
  /** How often expired rows nobody reads again are deleted. */
  readonly purgeIntervalMs?: number;
  /** Receives failures of the background purge, which has no caller to throw to. */
  readonly onBackgroundError: (error: Error) => void;
}

const DEFAULT_PURGE_INTERVAL_MS = 60_000;

/**
 * One open SQLite file and the commit group every operation on it goes through: what another
 * part of the process (the checkpointer) uses to work on the store's file over the store's own
 * connection instead of a second one.
 */
export interface SqliteConnection {
  /** The file, as the store resolved it. */
  readonly path: string;
  readonly db: DatabaseSync;
  readonly commits: SqliteCommitGroup;
}

/**
 * The embedded store: keyv namespaces, the AtomicStore and the sorted sets over one SQLite
 * connection, their operations committed in groups (sqlite-commit-group.ts).
 */
export class SqliteStore implements Store {
  readonly description: string;
  /**
   * Every operation on the connection goes through one commit group (sqlite-commit-group.ts),
   * except intake's, which run at once, each committed on its own.
   */
  get writesLandTogether(): boolean {
    return !runningAsIntake();
  }
  readonly atomic: SqliteAtomicStore;
  readonly namespace: <Value>(name: string) => Keyv<Value>;
  readonly sortedSets: SqliteSortedSets;
  /**
   * The store's connection, for the checkpointer on the same file (open-checkpointer.ts): one
   * connection keeps one page cache (a second one's commits make each throw its cache away) and
   * lands the writes of a loop turn — the store's and the checkpoint's — in one commit.
   */
  readonly connection: SqliteConnection;
  readonly #now: () => number;
  readonly #purgeTimer: NodeJS.Timeout;
  readonly #purgeStatements: StatementSync[];
  /** Copies the write-ahead log back into the file in a thread of its own (none for `:memory:`). */
  readonly #walCheckpoints: WalCheckpointer | undefined;

  constructor(path: string, options: SqliteStoreOptions) {
    const db = openSqliteDatabase(path);
    this.#walCheckpoints = checkpointInBackground(db, path, options.onBackgroundError);
    const now = options.now ?? Date.now;
    this.#now = now;
    this.description = options.description;
    // One commit group for every operation on this connection: a loop turn's writes, whichever
    // namespace or table they go to, commit together.
    const commits = new SqliteCommitGroup(db);
    this.connection = { path, db, commits };
    this.atomic = new SqliteAtomicStore(db, { now, commits });
    this.sortedSets = new SqliteSortedSets(db, commits);
    this.namespace = keyvPerNamespace(
      (name) =>
        new Keyv(new SqliteKeyvAdapter(db, { url: options.description, namespace: name, now, commits }), {
          namespace: name,
          ...KEYV_OPTIONS,
        }),
    );
    this.#purgeStatements = [
      db.prepare("DELETE FROM kv_entries WHERE expires_at <= ?"),
      db.prepare("DELETE FROM atomic_once WHERE expires_at <= ?"),
      db.prepare("DELETE FROM atomic_locks WHERE expires_at <= ?"),
    ];
    this.purgeExpired();
    this.#purgeTimer = setInterval(() => {
      try {
        this.purgeExpired();
      } catch (error) {
        options.onBackgroundError(new Error(`purging expired rows from ${path} failed`, { cause: error }));
      }
    }, options.purgeIntervalMs ?? DEFAULT_PURGE_INTERVAL_MS);
    // A purge is housekeeping; it must never be what keeps the process alive.
    this.#purgeTimer.unref();
  }

  /** Deletes every expired row now; returns how many went. */
  purgeExpired(): number {
    const now = this.#now();
    return this.#purgeStatements.reduce((total, statement) => total + Number(statement.run(now).changes), 0);
  }

  async close(): Promise<void> {
    clearInterval(this.#purgeTimer);
    await this.#walCheckpoints?.stop();
    // Operations issued before close (keyv takes a few microtasks to reach the adapter) still commit.
    await new Promise((resolve) => setImmediate(resolve));
    const { db, commits } = this.connection;
    if (db.isOpen) {
      commits.flushNow();
      db.close();
    }
  }
}
