import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { DatabaseSync, type SQLOutputValue } from "node:sqlite";
import { StoreConnectionError } from "../errors.ts";

/**
 * How long a write waits for another process holding the file's write lock before failing.
 * Our transactions are a few statements long, so contention beyond this means something is stuck.
 */
const BUSY_TIMEOUT_MS = 5_000;

/**
 * Key/value rows hold records of a few hundred bytes to a few kilobytes (requests, run summaries,
 * answers): a table with rowids and a separate (namespace, key) index. Until 2026-11 it was a
 * `WITHOUT ROWID` table, which keeps each whole row in the key's b-tree: fine for small rows, but
 * with rows this size every insert split and rewrote more pages (in a file of 30,000 rows, an
 * upsert of a 1 KB value took 2.7× as long, a read of one 3×). `upgradeSchema` converts older files.
 */
const kvEntriesTable = (name: string) => `CREATE TABLE IF NOT EXISTS ${name} (
    namespace  TEXT NOT NULL,
    key        TEXT NOT NULL,
    value      TEXT NOT NULL,
    expires_at INTEGER,
    PRIMARY KEY (namespace, key)
  )`;
const KV_ENTRIES_EXPIRY =
  "CREATE INDEX IF NOT EXISTS kv_entries_expiry ON kv_entries (expires_at) WHERE expires_at IS NOT NULL";

/**
 * Every table the embedded store uses. Keys carry their namespace in a column (not a key prefix)
 * so that clearing one namespace can never touch another.
 */
const SCHEMA = `
  ${kvEntriesTable("kv_entries")};
  ${KV_ENTRIES_EXPIRY};

  CREATE TABLE IF NOT EXISTS atomic_once (
    key        TEXT PRIMARY KEY,
    value      TEXT NOT NULL,
    expires_at INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS atomic_once_expiry ON atomic_once (expires_at);

  CREATE TABLE IF NOT EXISTS atomic_locks (
    key        TEXT PRIMARY KEY,
    token      TEXT NOT NULL,
    expires_at INTEGER NOT NULL
  ) WITHOUT ROWID;

  CREATE TABLE IF NOT EXISTS atomic_queue_items (
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    queue    TEXT NOT NULL,
    item     TEXT NOT NULL,
    position REAL NOT NULL DEFAULT 0
  );
`;

/** Run after SCHEMA: brings files written by earlier versions up to date, then builds what needs the new columns. */
function upgradeSchema(db: DatabaseSync): void {
  convertKvEntriesToRowid(db);
  const columns = db.prepare("PRAGMA table_info(atomic_queue_items)").all();
  if (!columns.some((column) => column.name === "position")) {
    db.exec("ALTER TABLE atomic_queue_items ADD COLUMN position REAL NOT NULL DEFAULT 0");
  }
  db.exec("DROP INDEX IF EXISTS atomic_queue_items_order");
  db.exec(
    "CREATE INDEX IF NOT EXISTS atomic_queue_items_position ON atomic_queue_items (queue, position, id)",
  );
}

/**
 * A file from before 2026-11 keeps its key/value rows in a `WITHOUT ROWID` table: copied, in one
 * transaction, into the table `kvEntriesTable` describes. The write lock is taken first and the
 * table checked again under it, so of two processes opening the file at once one converts it.
 */
function convertKvEntriesToRowid(db: DatabaseSync): void {
  const withoutRowid = () =>
    /WITHOUT\s+ROWID/i.test(
      String(
        db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'kv_entries'").get()?.sql,
      ),
    );
  if (!withoutRowid()) return;
  db.exec("BEGIN IMMEDIATE");
  try {
    if (withoutRowid()) {
      db.exec("DROP TABLE IF EXISTS kv_entries_rowid");
      db.exec(kvEntriesTable("kv_entries_rowid"));
      db.exec(
        "INSERT INTO kv_entries_rowid (namespace, key, value, expires_at) SELECT namespace, key, value, expires_at FROM kv_entries",
      );
      db.exec("DROP TABLE kv_entries");
      db.exec("ALTER TABLE kv_entries_rowid RENAME TO kv_entries");
      db.exec(KV_ENTRIES_EXPIRY);
    }
    db.exec("COMMIT");
  } catch (error) {
    if (db.isTransaction) db.exec("ROLLBACK");
    throw error;
  }
}

/**
 * Opens (creating if needed) the SQLite file at `path` with WAL journaling, so readers never block
 * the writer, and a busy timeout, so several processes on one file wait for each other instead of failing.
 */
export function openSqliteDatabase(path: string): DatabaseSync {
  let db: DatabaseSync | undefined;
  try {
    if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
    db = new DatabaseSync(path);
    db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    db.exec("PRAGMA journal_mode = WAL");
    // Safe with WAL: a power cut can lose the last commits but never corrupts the file.
    db.exec("PRAGMA synchronous = NORMAL");
    db.exec(SCHEMA);
    upgradeSchema(db);
    return db;
  } catch (error) {
    if (db?.isOpen) db.close();
    throw new StoreConnectionError(
      path,
      "could not open the SQLite store",
      "that the folder exists or can be created, that this process may write there, and that the file is a SQLite database",
      { cause: error },
    );
  }
}

/**
 * Runs `work` inside `BEGIN IMMEDIATE`: the write lock is taken up front, so a read-then-write
 * sequence cannot interleave with another process's write to the same file. Inside a transaction
 * already open (a commit group's, which holds the write lock), `work` runs in a savepoint: undone
 * alone if it fails, committed with the group.
 */
export function inImmediateTransaction<Result>(db: DatabaseSync, work: () => Result): Result {
  if (db.isTransaction) return inSavepoint(db, work);
  db.exec("BEGIN IMMEDIATE");
  try {
    const result = work();
    db.exec("COMMIT");
    return result;
  } catch (error) {
    if (db.isTransaction) db.exec("ROLLBACK");
    throw error;
  }
}

function inSavepoint<Result>(db: DatabaseSync, work: () => Result): Result {
  db.exec("SAVEPOINT operation");
  try {
    const result = work();
    db.exec("RELEASE operation");
    return result;
  } catch (error) {
    if (db.isTransaction) {
      db.exec("ROLLBACK TO operation");
      db.exec("RELEASE operation");
    }
    throw error;
  }
}

/** A TEXT column's value; anything else means the file was written by something other than us. */
export function textColumn(value: SQLOutputValue | undefined): string {
  if (typeof value !== "string") throw new TypeError(`expected a text column, got ${typeof value}`);
  return value;
}
