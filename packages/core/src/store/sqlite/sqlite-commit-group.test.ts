import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runAsIntake } from "../../runtime/event-loop.ts";
import { tempDirectory } from "../test-backends.ts";
import { READS_AT_ONCE_PER_TURN, SqliteCommitGroup } from "./sqlite-commit-group.ts";
import { inImmediateTransaction, openSqliteDatabase } from "./sqlite-database.ts";
import { SqliteStore } from "./sqlite-store.ts";

describe("SqliteCommitGroup", () => {
  let directory: Awaited<ReturnType<typeof tempDirectory>>;
  let file: string;
  let db: DatabaseSync;
  let group: SqliteCommitGroup;
  /** Another connection, as another process sees the file. */
  let other: DatabaseSync;
  const insert = (key: string) => () => {
    db.prepare("INSERT INTO kv_entries (namespace, key, value) VALUES ('t', ?, 'v')").run(key);
  };
  const visible = () =>
    other
      .prepare("SELECT key FROM kv_entries WHERE namespace = 't' ORDER BY key")
      .all()
      .map((row) => row.key);

  beforeEach(async () => {
    directory = await tempDirectory();
    file = join(directory.path, "group.db");
    db = openSqliteDatabase(file);
    group = new SqliteCommitGroup(db);
    other = new DatabaseSync(file, { readOnly: true });
  });
  afterEach(async () => {
    other.close();
    db.close();
    await directory.remove();
  });

  it("commits the operations of one loop turn together, and settles each only once committed", async () => {
    const settledWhileVisible: string[][] = [];
    const writes = ["a", "b", "c"].map((key) =>
      group.run(insert(key)).then(() => settledWhileVisible.push(visible().map(String))),
    );
    expect(visible()).toEqual([]);
    await Promise.all(writes);
    expect(settledWhileVisible).toEqual([
      ["a", "b", "c"],
      ["a", "b", "c"],
      ["a", "b", "c"],
    ]);
  });

  it("writes one commit to the log for a turn's operations, not one per operation", async () => {
    /** Pages written to the WAL since it was last emptied: every commit adds at least one. */
    const walFrames = () => Number(db.prepare("PRAGMA wal_checkpoint(PASSIVE)").get()?.log);
    db.prepare("PRAGMA wal_checkpoint(TRUNCATE)").get();
    await Promise.all(Array.from({ length: 20 }, (_, index) => group.run(insert(`grouped-${index}`))));
    const grouped = walFrames();
    db.prepare("PRAGMA wal_checkpoint(TRUNCATE)").get();
    for (let index = 0; index < 20; index++) await group.run(insert(`apart-${index}`));
    const apart = walFrames();
    expect(grouped).toBeLessThanOrEqual(3);
    expect(apart).toBeGreaterThanOrEqual(20);
  });

  it("runs operations in the order they were issued: a later read sees an earlier write", async () => {
    const write = group.run(insert("a"));
    const read = group.run(() => db.prepare("SELECT count(*) AS n FROM kv_entries").get()?.n, false);
    await write;
    expect(await read).toBe(1);
  });

  it("runs a read at once when none of its writes waits, without waiting for the loop to turn", async () => {
    await group.run(insert("a"));
    const count = () =>
      group.run(() => Number(db.prepare("SELECT count(*) AS n FROM kv_entries").get()?.n), false);
    let loopTurned = false;
    setImmediate(() => {
      loopTurned = true;
    });
    expect(await count()).toBe(1);
    expect(loopTurned).toBe(false);
  });

  it("lets the loop turn after a run of reads at once, so a loop of reads still lets I/O in", async () => {
    let loopTurned = false;
    setImmediate(() => {
      loopTurned = true;
    });
    const seen: boolean[] = [];
    for (let index = 0; index <= READS_AT_ONCE_PER_TURN; index++) {
      await group.run(() => db.prepare("SELECT 1").get(), false);
      seen.push(loopTurned);
    }
    expect(seen.slice(0, READS_AT_ONCE_PER_TURN).every((turned) => !turned)).toBe(true);
    expect(seen.at(-1)).toBe(true);
  });

  it("fails only the operation that failed; the others in its group land", async () => {
    const results = await Promise.allSettled([
      group.run(insert("a")),
      group.run(insert("a")), // primary key taken: this statement alone is undone
      group.run(() => {
        throw new Error("not this one");
      }),
      group.run(insert("b")),
    ]);
    expect(results.map((result) => result.status)).toEqual([
      "fulfilled",
      "rejected",
      "rejected",
      "fulfilled",
    ]);
    expect(visible()).toEqual(["a", "b"]);
  });

  it("keeps a multi-statement operation atomic inside the group (a savepoint)", async () => {
    const results = await Promise.allSettled([
      group.run(insert("a")),
      group.run(() =>
        inImmediateTransaction(db, () => {
          insert("half")();
          throw new Error("fails after its first statement");
        }),
      ),
      group.run(() => inImmediateTransaction(db, insert("b"))),
    ]);
    expect(results.map((result) => result.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(visible()).toEqual(["a", "b"]);
  });

  it("runs intake's operations at once, outside any group", async () => {
    const queued = group.run(insert("queued"));
    await runAsIntake(() => group.run(insert("intake")));
    expect(visible()).toEqual(["intake"]);
    await queued;
    expect(visible()).toEqual(["intake", "queued"]);
  });

  it("lands writes issued just before the store closes", async () => {
    db.close();
    const store = new SqliteStore(file, { description: file, onBackgroundError: () => {} });
    const write = store.namespace<string>("t").set("last", "v");
    await store.close();
    await write;
    db = openSqliteDatabase(file);
    expect(visible()).toEqual(["last"]);
  });
});
