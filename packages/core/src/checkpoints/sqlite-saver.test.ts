import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { emptyCheckpoint } from "@langchain/langgraph-checkpoint";
import { afterAll, describe, expect, it, vi } from "vitest";
import { SqliteStore } from "../store/sqlite/sqlite-store.ts";
import { WAL_THREAD_DELAY_MS } from "../store/sqlite/wal-checkpointer.ts";
import { SqliteSaver } from "./sqlite-saver.ts";
import { createCheckpointTables } from "./sqlite-schema.ts";
import { prepareStatements } from "./sqlite-statements.ts";
import { registerCheckpointerValidation } from "./validation-suite.ts";

const folder = mkdtempSync(join(tmpdir(), "switchboard-checkpoints-"));
let files = 0;
afterAll(() => rmSync(folder, { recursive: true, force: true }));

// A fresh file per instance: the suite's list cases count every checkpoint the saver holds.
registerCheckpointerValidation<SqliteSaver>("SqliteSaver", (keepCheckpoints) => ({
  createCheckpointer: () =>
    new SqliteSaver({ path: join(folder, `validation-${files++}.db`), keepCheckpoints }),
  destroyCheckpointer: (saver) => saver.close(),
}));

// The same cases over the store's connection (checkpoints in the store's file, as the CLI runs).
const storesOf = new WeakMap<SqliteSaver, SqliteStore>();
registerCheckpointerValidation<SqliteSaver>("SqliteSaver on the store's connection", (keepCheckpoints) => ({
  createCheckpointer: () => {
    const path = join(folder, `shared-${files++}.db`);
    const store = new SqliteStore(path, { description: path, onBackgroundError: () => {} });
    const saver = new SqliteSaver({ connection: store.connection, keepCheckpoints });
    storesOf.set(saver, store);
    return saver;
  },
  destroyCheckpointer: async (saver) => {
    await saver.close();
    await storesOf.get(saver)?.close();
  },
}));

describe("SqliteSaver files", () => {
  it("checkpoints a file of its own in a thread after its first second, when told where failures go", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      const problems: Error[] = [];
      const saver = new SqliteSaver({
        path: join(folder, "own-file.db"),
        onBackgroundError: (error) => problems.push(error),
      });
      expect(saver.checkpointsInBackground).toBe(false);
      vi.advanceTimersByTime(WAL_THREAD_DELAY_MS);
      expect(saver.checkpointsInBackground).toBe(true);
      await saver.close();
      expect(saver.checkpointsInBackground).toBe(false);
      expect(problems).toEqual([]);
      // Without a place for failures, no thread: its failure would go unseen.
      const quiet = new SqliteSaver({ path: join(folder, "own-file-quiet.db") });
      vi.advanceTimersByTime(WAL_THREAD_DELAY_MS);
      expect(quiet.checkpointsInBackground).toBe(false);
      await quiet.close();
    } finally {
      vi.useRealTimers();
    }
  });

  it("creates missing parent folders", async () => {
    const saver = new SqliteSaver({ path: join(folder, "nested", "deeper", "checkpoints.db") });
    expect(await saver.getTuple({ configurable: { thread_id: "t" } })).toBeUndefined();
    await saver.close();
  });

  it("refuses a file whose checkpoint tables have another layout", async () => {
    const path = join(folder, "foreign.db");
    const { DatabaseSync } = await import("node:sqlite");
    const foreign = new DatabaseSync(path);
    foreign.exec(
      "CREATE TABLE checkpoints (thread_id TEXT, checkpoint_id TEXT, checkpoint BLOB, metadata BLOB)",
    );
    foreign.close();
    expect(() => new SqliteSaver({ path })).toThrow(/unexpected layout.*root_checkpoint_id/);
  });
});

describe("SqliteSaver and the event loop", () => {
  // A turn's answer waits for its checkpoint: each extra turn of a busy loop (a burst's hundreds
  // of turns share it) holds every answer back by the whole turn's work.
  it("lets the loop turn once for a put, as for every store call, and no more", async () => {
    const saver = new SqliteSaver({ path: join(folder, "one-turn.db") });
    const immediate = vi.spyOn(globalThis, "setImmediate");
    try {
      await saver.put(
        { configurable: { thread_id: "t", checkpoint_ns: "" } },
        emptyCheckpoint(),
        { source: "input", step: -1, parents: {} },
        {},
      );
      expect(immediate).toHaveBeenCalledTimes(1);
    } finally {
      immediate.mockRestore();
    }
    expect(await saver.getTuple({ configurable: { thread_id: "t" } })).toBeDefined();
    await saver.close();
  });
});

describe("SqliteSaver on the store's connection", () => {
  const put = (saver: SqliteSaver, thread: string) =>
    saver.put(
      { configurable: { thread_id: thread, checkpoint_ns: "" } },
      emptyCheckpoint(),
      { source: "input", step: -1, parents: {} },
      {},
    );

  it("lands a checkpoint and the store's writes of the same turn in one commit", async () => {
    const path = join(folder, "one-commit.db");
    const store = new SqliteStore(path, { description: path, onBackgroundError: () => {} });
    const saver = new SqliteSaver({ connection: store.connection });
    const { DatabaseSync } = await import("node:sqlite");
    const exec = DatabaseSync.prototype.exec;
    let commits = 0;
    // Every connection of the process: a saver on a connection of its own would commit apart.
    DatabaseSync.prototype.exec = function (this: InstanceType<typeof DatabaseSync>, sql: string) {
      if (/^\s*COMMIT\b/i.test(sql)) commits += 1;
      return exec.call(this, sql);
    };
    try {
      await Promise.all([store.namespace<string>("answers").set("a", "b"), put(saver, "t")]);
    } finally {
      DatabaseSync.prototype.exec = exec;
    }
    expect(commits).toBe(1);
    expect(await saver.getTuple({ configurable: { thread_id: "t" } })).toBeDefined();
    expect(await store.namespace<string>("answers").get("a")).toBe("b");
    await store.close();
  });

  it("leaves the connection to the store when it closes", async () => {
    const path = join(folder, "store-closes.db");
    const store = new SqliteStore(path, { description: path, onBackgroundError: () => {} });
    const saver = new SqliteSaver({ connection: store.connection });
    await put(saver, "t");
    await saver.close();
    expect(store.connection.db.isOpen).toBe(true);
    await store.namespace<string>("answers").set("after", "close");
    expect(await store.namespace<string>("answers").get("after")).toBe("close");
    await store.close();
    await expect(put(saver, "u")).rejects.toThrow(/closed/);
  });
});

describe("SqliteSaver pruning", () => {
  // Pruning runs at every step of a conversation past the kept window. A subquery correlated with
  // each stored row re-read (and re-parsed) every kept checkpoint's versions per blob: a cost of
  // blobs × checkpoints × channels at each step.
  it("reads the thread's kept checkpoints once per clean-up, not once per stored row", async () => {
    const { DatabaseSync } = await import("node:sqlite");
    const db = new DatabaseSync(":memory:");
    createCheckpointTables(db, ":memory:");
    const statements = prepareStatements(db);
    for (const cleanUp of [statements.deleteOrphanBlobs, statements.deleteOrphanWrites]) {
      const plan = db
        .prepare(`EXPLAIN QUERY PLAN ${cleanUp.sourceSQL}`)
        .all("thread")
        .map((row) => String(row.detail));
      expect(plan.some((step) => step.includes("SUBQUERY"))).toBe(true);
      expect(plan.filter((step) => step.includes("CORRELATED"))).toEqual([]);
    }
    db.close();
  });
});
