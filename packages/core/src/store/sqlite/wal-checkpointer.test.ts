import { statSync } from "node:fs";
import { join } from "node:path";
import type { DatabaseSync } from "node:sqlite";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { tempDirectory } from "../test-backends.ts";
import { openSqliteDatabase } from "./sqlite-database.ts";
import { SqliteStore } from "./sqlite-store.ts";
import {
  SQLITE_AUTOCHECKPOINT_PAGES,
  WAL_THREAD_DELAY_MS,
  WAL_THREAD_RETRY_MS,
  WalCheckpointer,
} from "./wal-checkpointer.ts";

const PAGE_BYTES = 4096;
const autocheckpoint = (db: DatabaseSync) =>
  Number(db.prepare("PRAGMA wal_autocheckpoint").get()?.wal_autocheckpoint);

describe("WalCheckpointer", () => {
  let directory: Awaited<ReturnType<typeof tempDirectory>>;
  let file: string;
  let db: DatabaseSync;
  let checkpointer: WalCheckpointer | undefined;

  beforeEach(async () => {
    directory = await tempDirectory();
    file = join(directory.path, "wal.db");
    db = openSqliteDatabase(file);
  });
  afterEach(async () => {
    await checkpointer?.stop();
    checkpointer = undefined;
    db.close();
    await directory.remove();
  });

  /** `rows` rows of a page each, committed `perCommit` rows at a time on the test's connection. */
  const write = (rows: number, perCommit: number) => {
    const insert = db.prepare("INSERT INTO kv_entries (namespace, key, value) VALUES ('t', ?, ?)");
    for (let start = 0; start < rows; start += perCommit) {
      db.exec("BEGIN IMMEDIATE");
      for (let row = start; row < Math.min(rows, start + perCommit); row++)
        insert.run(`key-${row}`, "x".repeat(PAGE_BYTES));
      db.exec("COMMIT");
    }
  };

  it("copies the log into the file from its own thread; the connection never checkpoints by itself", async () => {
    const problems: Error[] = [];
    const rows = 3_000;
    let fileBefore = 0;
    let copied = 0;
    let allCopied: () => void = () => {};
    const done = new Promise<void>((resolve) => {
      allCopied = resolve;
    });
    checkpointer = new WalCheckpointer(db, file, {
      onProblem: (error) => problems.push(error),
      onCheckpoint: ({ frames }) => {
        copied += frames;
        // Only a checkpoint writes pages into the database file; this connection was told never to.
        if (statSync(file).size > fileBefore + rows * PAGE_BYTES) allCopied();
      },
      minIntervalMs: 5,
    });
    expect(autocheckpoint(db)).toBe(SQLITE_AUTOCHECKPOINT_PAGES);
    checkpointer.start();
    expect(autocheckpoint(db)).toBe(0);
    fileBefore = statSync(file).size;
    // More than SQLite's threshold (1,000 pages), in commits of 50 rows of a page or more each.
    write(rows, 50);
    await done;
    expect(copied).toBeGreaterThan(SQLITE_AUTOCHECKPOINT_PAGES);
    expect(db.prepare("SELECT count(*) AS n FROM kv_entries").get()?.n).toBe(rows);
    expect(problems).toEqual([]);
  });

  it("hands checkpoints back to the connection, and says so, when its thread cannot go on", async () => {
    const problem = new Promise<Error>((resolve) => {
      // A file the thread cannot open: it fails at once.
      checkpointer = new WalCheckpointer(db, join(directory.path, "missing", "nowhere.db"), {
        onProblem: resolve,
      });
      checkpointer.start();
    });
    const error = await problem;
    expect(error.message).toContain("checkpointing");
    expect(error.message).toContain("checkpoints by itself");
    expect(autocheckpoint(db)).toBe(SQLITE_AUTOCHECKPOINT_PAGES);
    // The connection keeps its log short again by itself.
    write(1_500, 50);
    const walFrames = Number(db.prepare("PRAGMA wal_checkpoint(PASSIVE)").get()?.log);
    expect(walFrames).toBeLessThan(2 * SQLITE_AUTOCHECKPOINT_PAGES);
  });

  it("tries a new thread a minute after a failure, and waits twice as long while it keeps failing", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      let reported: (error: Error) => void = () => {};
      const nextProblem = () =>
        new Promise<Error>((resolve) => {
          reported = resolve;
        });
      let problem = nextProblem();
      checkpointer = new WalCheckpointer(db, join(directory.path, "missing", "nowhere.db"), {
        onProblem: (error) => reported(error),
      });
      checkpointer.start();
      expect((await problem).message).toContain("until a new thread is tried in 60 s");
      expect(checkpointer.running).toBe(false);
      problem = nextProblem();
      vi.advanceTimersByTime(WAL_THREAD_RETRY_MS.first - 1);
      expect(checkpointer.running).toBe(false);
      vi.advanceTimersByTime(1);
      expect(checkpointer.running).toBe(true);
      expect(autocheckpoint(db)).toBe(0);
      expect((await problem).message).toContain("until a new thread is tried in 120 s");
      expect(autocheckpoint(db)).toBe(SQLITE_AUTOCHECKPOINT_PAGES);
    } finally {
      vi.useRealTimers();
    }
  });

  it("stops without a word when asked to, and leaves the connection's settings alone", async () => {
    const problems: Error[] = [];
    checkpointer = new WalCheckpointer(db, file, { onProblem: (error) => problems.push(error) });
    checkpointer.start();
    expect(checkpointer.running).toBe(true);
    await checkpointer.stop();
    expect(checkpointer.running).toBe(false);
    checkpointer = undefined;
    expect(problems).toEqual([]);
    expect(autocheckpoint(db)).toBe(0);
  });
});

describe("SqliteStore and its log", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("leaves the store connection's checkpoints to a thread after its first second, and closes it with the store", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const directory = await tempDirectory();
    const problems: Error[] = [];
    const store = new SqliteStore(join(directory.path, "store.db"), {
      description: "test store",
      onBackgroundError: (error) => problems.push(error),
    });
    try {
      // A command that opens the store for a moment checkpoints as SQLite does, with no thread.
      expect(autocheckpoint(store.connection.db)).toBe(SQLITE_AUTOCHECKPOINT_PAGES);
      vi.advanceTimersByTime(WAL_THREAD_DELAY_MS);
      expect(autocheckpoint(store.connection.db)).toBe(0);
      await store.namespace<string>("n").set("k", "v");
    } finally {
      await store.close();
      await directory.remove();
    }
    expect(problems).toEqual([]);
  });

  it("starts no thread for a store in memory (there is no file to share)", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const store = new SqliteStore(":memory:", { description: "memory", onBackgroundError: () => {} });
    try {
      vi.advanceTimersByTime(WAL_THREAD_DELAY_MS);
      // A started thread would have turned the connection's own checkpoints off.
      expect(autocheckpoint(store.connection.db)).toBe(SQLITE_AUTOCHECKPOINT_PAGES);
    } finally {
      await store.close();
    }
  });
});
