import { execFile } from "node:child_process";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runAsIntake } from "../../runtime/event-loop.ts";
import { waitFor } from "../../testing/wait.ts";
import { fakeClock, tempDirectory } from "../test-backends.ts";
import { SqliteStore } from "./sqlite-store.ts";

const run = promisify(execFile);

describe("SqliteStore", () => {
  let directory: Awaited<ReturnType<typeof tempDirectory>>;
  let file: string;
  const rowCount = (table: string): number => {
    const db = new DatabaseSync(file, { readOnly: true });
    try {
      return Number(db.prepare(`SELECT count(*) AS n FROM ${table}`).get()?.n);
    } finally {
      db.close();
    }
  };

  beforeEach(async () => {
    directory = await tempDirectory();
    file = join(directory.path, "store.db");
  });
  afterEach(() => directory.remove());

  it("converts a file whose key/value rows are in a WITHOUT ROWID table (before 2026-11), every entry kept", async () => {
    const old = new DatabaseSync(file);
    old.exec(`
      CREATE TABLE kv_entries (namespace TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,
        expires_at INTEGER, PRIMARY KEY (namespace, key)) WITHOUT ROWID;
      CREATE INDEX kv_entries_expiry ON kv_entries (expires_at) WHERE expires_at IS NOT NULL;`);
    const insert = old.prepare("INSERT INTO kv_entries VALUES (?, ?, ?, ?)");
    const record = JSON.stringify({ value: { id: "req-1", text: "x".repeat(2_000) }, expires: null });
    insert.run("requests", "req-1", record, null);
    insert.run("outbox", "work-1", JSON.stringify({ value: "answered", expires: null }), null);
    old.close();

    const store = new SqliteStore(file, { description: file, onBackgroundError: () => {} });
    try {
      expect(await store.namespace("requests").get("req-1")).toEqual({
        id: "req-1",
        text: "x".repeat(2_000),
      });
      expect(await store.namespace("outbox").get("work-1")).toBe("answered");
      await store.namespace("outbox").set("work-2", "new");
      expect(await store.namespace("outbox").get("work-2")).toBe("new");
    } finally {
      await store.close();
    }
    const db = new DatabaseSync(file, { readOnly: true });
    try {
      const table = db.prepare("SELECT sql FROM sqlite_master WHERE name = 'kv_entries'").get();
      expect(String(table?.sql)).not.toMatch(/WITHOUT ROWID/i);
      const indexes = db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'kv_entries'")
        .all();
      expect(indexes.map((index) => index.name)).toContain("kv_entries_expiry");
    } finally {
      db.close();
    }
    expect(rowCount("kv_entries")).toBe(3);
  });

  it("lands writes sent together in one commit, except intake's, which each commit at once", async () => {
    const store = new SqliteStore(file, { description: file, onBackgroundError: () => {} });
    try {
      expect(store.writesLandTogether).toBe(true);
      expect(await runAsIntake(async () => store.writesLandTogether)).toBe(false);
    } finally {
      await store.close();
    }
  });

  it("journals in WAL mode so readers never block the writer", async () => {
    const store = new SqliteStore(file, { description: file, onBackgroundError: () => {} });
    const db = new DatabaseSync(file, { readOnly: true });
    expect(db.prepare("PRAGMA journal_mode").get()?.journal_mode).toBe("wal");
    db.close();
    await store.close();
  });

  it("purges expired rows and keeps live ones", async () => {
    const clock = fakeClock();
    const store = new SqliteStore(file, { description: file, now: clock.now, onBackgroundError: () => {} });
    const kv = store.namespace<string>("kv");
    await kv.set("short", "x", 100);
    await kv.set("long", "y", 10_000);
    await store.atomic.setIfAbsent("once", "1", 100);
    await store.atomic.acquireLock("lock", 100);
    await store.atomic.acquireLock("held", 10_000);
    await clock.advance(500);
    expect(store.purgeExpired()).toBe(3);
    expect(rowCount("kv_entries")).toBe(1);
    expect(rowCount("atomic_once")).toBe(0);
    expect(rowCount("atomic_locks")).toBe(1);
    await store.close();
  });

  it("purges in the background on its interval", async () => {
    const clock = fakeClock();
    const store = new SqliteStore(file, {
      description: file,
      now: clock.now,
      purgeIntervalMs: 10,
      onBackgroundError: () => {},
    });
    await store.atomic.setIfAbsent("once", "1", 100);
    await clock.advance(500);
    await waitFor("the background purge", () => rowCount("atomic_once") === 0);
    await store.close();
  });

  it("reports a failed background purge instead of dropping it", async () => {
    const errors: Error[] = [];
    const store = new SqliteStore(file, {
      description: file,
      purgeIntervalMs: 10,
      onBackgroundError: (error) => errors.push(error),
    });
    // Simulates a file damaged or changed under us; waiting out a real busy timeout would take seconds.
    const db = new DatabaseSync(file);
    db.exec("DROP TABLE atomic_locks");
    db.close();
    await waitFor("the background purge to fail", () => errors.length > 0);
    await store.close();
    expect(errors[0]?.message).toContain(`purging expired rows from ${file} failed`);
  });

  it("stays exact when several processes race for the same keys", async () => {
    await new SqliteStore(file, { description: file, onBackgroundError: () => {} }).close();
    // Every process starts its loop at the same moment so their writes interleave (each loop takes
    // a few hundred ms; which process wins which key is up to the scheduler, so only totals are checked).
    const startAt = Date.now() + 3_000;
    const storeModule = new URL("./sqlite-atomic-store.ts", import.meta.url).pathname;
    const databaseModule = new URL("./sqlite-database.ts", import.meta.url).pathname;
    const worker = `
      const { SqliteAtomicStore } = await import(${JSON.stringify(storeModule)});
      const { openSqliteDatabase } = await import(${JSON.stringify(databaseModule)});
      const store = new SqliteAtomicStore(openSqliteDatabase(${JSON.stringify(file)}));
      while (Date.now() < ${startAt}) await new Promise((resolve) => setTimeout(resolve, 1));
      let wins = 0;
      for (let i = 0; i < 300; i++) {
        if (await store.setIfAbsent("key-" + i, process.pid + "", 60000)) wins++;
        await store.enqueue("shared", { item: process.pid + ":" + i, order: i });
      }
      console.log(wins);`;
    const processes = Array.from({ length: 4 }, () =>
      run(process.execPath, ["--disable-warning=ExperimentalWarning", "--input-type=module", "-e", worker]),
    );
    const wins = (await Promise.all(processes)).map(({ stdout }) => Number(stdout.trim()));
    expect(wins.reduce((a, b) => a + b, 0)).toBe(300);
    expect(rowCount("atomic_queue_items")).toBe(1_200);
  }, 60_000);
});
