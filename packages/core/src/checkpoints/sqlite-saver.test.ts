import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SqliteSaver } from "./sqlite-saver.ts";
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
