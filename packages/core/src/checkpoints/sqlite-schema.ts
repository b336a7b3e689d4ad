import type { DatabaseSync } from "node:sqlite";
import { CheckpointSchemaError } from "./errors.ts";

/**
 * Three tables beside the key/value store's own, in the same file.
 *
 * `checkpoints` holds each checkpoint without its channel values plus `channel_versions` as JSON
 * text (`{channel: "version"}`), which is how a checkpoint finds its blobs and how pruning finds
 * the blobs no checkpoint points at any more. `checkpoint_blobs` holds one row per channel value
 * per version, so a channel the step did not change is not written again.
 */
const CREATE_TABLES = `
CREATE TABLE IF NOT EXISTS checkpoints (
  thread_id TEXT NOT NULL,
  checkpoint_ns TEXT NOT NULL DEFAULT '',
  checkpoint_id TEXT NOT NULL,
  parent_checkpoint_id TEXT,
  root_checkpoint_id TEXT,
  checkpoint_type TEXT NOT NULL,
  checkpoint BLOB NOT NULL,
  metadata_type TEXT NOT NULL,
  metadata BLOB NOT NULL,
  channel_versions TEXT NOT NULL,
  PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id)
);
CREATE TABLE IF NOT EXISTS checkpoint_blobs (
  thread_id TEXT NOT NULL,
  checkpoint_ns TEXT NOT NULL DEFAULT '',
  channel TEXT NOT NULL,
  version TEXT NOT NULL,
  type TEXT NOT NULL,
  blob BLOB NOT NULL,
  PRIMARY KEY (thread_id, checkpoint_ns, channel, version)
);
CREATE TABLE IF NOT EXISTS checkpoint_writes (
  thread_id TEXT NOT NULL,
  checkpoint_ns TEXT NOT NULL DEFAULT '',
  checkpoint_id TEXT NOT NULL,
  task_id TEXT NOT NULL,
  idx INTEGER NOT NULL,
  channel TEXT NOT NULL,
  task_path TEXT NOT NULL DEFAULT '',
  type TEXT NOT NULL,
  blob BLOB NOT NULL,
  PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, idx)
);
`;

const EXPECTED_COLUMNS: Record<string, readonly string[]> = {
  checkpoints: ["root_checkpoint_id", "channel_versions", "checkpoint_type", "metadata_type"],
  checkpoint_blobs: ["channel", "version", "type", "blob"],
  checkpoint_writes: ["task_path", "type", "blob"],
};

export function createCheckpointTables(db: DatabaseSync, location: string): void {
  db.exec(CREATE_TABLES);
  for (const [table, expected] of Object.entries(EXPECTED_COLUMNS)) {
    const present = new Set(
      db
        .prepare(`SELECT name FROM pragma_table_info(?)`)
        .all(table)
        .map((row) => String(row.name)),
    );
    const missing = expected.filter((column) => !present.has(column));
    if (missing.length > 0) {
      throw new CheckpointSchemaError(location, `table ${table} lacks ${missing.join(", ")}`);
    }
  }
}
