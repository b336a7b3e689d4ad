import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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
