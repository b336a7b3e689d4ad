import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { emptyCheckpoint } from "@langchain/langgraph-checkpoint";
import { afterAll, describe, expect, it } from "vitest";
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

describe("SqliteSaver files", () => {
  it("creates missing parent folders", async () => {
    const saver = new SqliteSaver({ path: join(folder, "nested", "deeper", "checkpoints.db") });
    expect(await saver.getTuple({ configurable: { thread_id: "t" } })).toBeUndefined();
    saver.close();
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
    let written = false;
    const put = saver
      .put(
        { configurable: { thread_id: "t", checkpoint_ns: "" } },
        emptyCheckpoint(),
        { source: "input", step: -1, parents: {} },
        {},
      )
      .then(() => {
        written = true;
      });
    let turns = 0;
    while (!written) {
      await new Promise((resolve) => setImmediate(resolve));
      turns += 1;
    }
    await put;
    expect(turns).toBe(1);
    expect(await saver.getTuple({ configurable: { thread_id: "t" } })).toBeDefined();
    saver.close();
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
