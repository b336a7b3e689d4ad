import type { DatabaseSync, SQLInputValue, StatementSync } from "node:sqlite";
import type { CheckpointRecord, StoredCheckpoint, StoredWrite, WritesRecord } from "./retaining-saver.ts";
import { bytesColumn, numberColumn, optionalTextColumn, textColumn } from "./sqlite-rows.ts";

/** The SQL of the SQLite saver, prepared once per connection, and its row mappings. */

type Row = Record<string, unknown>;

export const CHECKPOINT_COLUMNS =
  "thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint_type, checkpoint, metadata_type, metadata, channel_versions";

export function prepareStatements(db: DatabaseSync) {
  const prepare = (sql: string): StatementSync => db.prepare(sql);
  const writeColumns =
    "thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, task_path, type, blob";
  return {
    latest: prepare(
      `SELECT ${CHECKPOINT_COLUMNS} FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ?
       ORDER BY checkpoint_id DESC LIMIT 1`,
    ),
    one: prepare(
      `SELECT ${CHECKPOINT_COLUMNS} FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?`,
    ),
    blobs: prepare(
      `SELECT b.channel, b.type, b.blob FROM json_each(?) AS v
       JOIN checkpoint_blobs AS b ON b.thread_id = ? AND b.checkpoint_ns = ? AND b.channel = v.key AND b.version = v.value`,
    ),
    writes: prepare(
      `SELECT task_id, channel, idx, task_path, type, blob FROM checkpoint_writes
       WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?`,
    ),
    insertBlob: prepare(
      `INSERT OR IGNORE INTO checkpoint_blobs (thread_id, checkpoint_ns, channel, version, type, blob)
       VALUES (?, ?, ?, ?, ?, ?)`,
    ),
    upsertCheckpoint: prepare(
      `INSERT OR REPLACE INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id,
         root_checkpoint_id, checkpoint_type, checkpoint, metadata_type, metadata, channel_versions)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    insertWrite: prepare(
      `INSERT OR IGNORE INTO checkpoint_writes (${writeColumns}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    upsertWrite: prepare(
      `INSERT OR REPLACE INTO checkpoint_writes (${writeColumns}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    pruneNamespace: prepare(
      `DELETE FROM checkpoints WHERE thread_id = ?1 AND checkpoint_ns = ?2 AND checkpoint_id IN (
         SELECT checkpoint_id FROM checkpoints WHERE thread_id = ?1 AND checkpoint_ns = ?2
         ORDER BY checkpoint_id DESC LIMIT -1 OFFSET ?3)`,
    ),
    // Subgraph checkpoints started by a root checkpoint that is no longer kept (see rootCheckpointOf).
    pruneSubgraphs: prepare(
      `DELETE FROM checkpoints WHERE thread_id = ? AND checkpoint_ns <> '' AND root_checkpoint_id < (
         SELECT min(checkpoint_id) FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '')`,
    ),
    // The kept checkpoints' keys and versions are read once (a list subquery), not once per row:
    // correlated, the blob check unpacked every kept checkpoint's versions for every blob, a cost
    // of blobs × checkpoints × channels paid at each step of a long conversation.
    deleteOrphanWrites: prepare(
      `DELETE FROM checkpoint_writes WHERE thread_id = ?1 AND (checkpoint_ns, checkpoint_id) NOT IN (
         SELECT checkpoint_ns, checkpoint_id FROM checkpoints WHERE thread_id = ?1)`,
    ),
    deleteOrphanBlobs: prepare(
      `DELETE FROM checkpoint_blobs WHERE thread_id = ?1 AND (checkpoint_ns, channel, version) NOT IN (
         SELECT c.checkpoint_ns, v.key, v.value FROM checkpoints AS c, json_each(c.channel_versions) AS v
         WHERE c.thread_id = ?1)`,
    ),
    deleteThread: [
      prepare("DELETE FROM checkpoint_writes WHERE thread_id = ?"),
      prepare("DELETE FROM checkpoint_blobs WHERE thread_id = ?"),
      prepare("DELETE FROM checkpoints WHERE thread_id = ?"),
    ],
  };
}

export function checkpointParams(record: CheckpointRecord): SQLInputValue[] {
  return [
    record.threadId,
    record.namespace,
    record.checkpointId,
    record.parentCheckpointId ?? null,
    record.rootCheckpointId ?? null,
    record.checkpoint.type,
    record.checkpoint.bytes,
    record.metadata.type,
    record.metadata.bytes,
    JSON.stringify(record.channelVersions),
  ];
}

export function writeParams(record: WritesRecord, write: StoredWrite): SQLInputValue[] {
  return [
    record.threadId,
    record.namespace,
    record.checkpointId,
    write.taskId,
    write.idx,
    write.channel,
    write.taskPath,
    write.value.type,
    write.value.bytes,
  ];
}

export function toStored(row: Row): StoredCheckpoint {
  return {
    threadId: textColumn(row, "thread_id"),
    namespace: textColumn(row, "checkpoint_ns"),
    checkpointId: textColumn(row, "checkpoint_id"),
    parentCheckpointId: optionalTextColumn(row, "parent_checkpoint_id"),
    checkpoint: { type: textColumn(row, "checkpoint_type"), bytes: bytesColumn(row, "checkpoint") },
    metadata: { type: textColumn(row, "metadata_type"), bytes: bytesColumn(row, "metadata") },
  };
}

export function toStoredWrite(row: Row): StoredWrite {
  return {
    taskId: textColumn(row, "task_id"),
    channel: textColumn(row, "channel"),
    idx: numberColumn(row, "idx"),
    taskPath: textColumn(row, "task_path"),
    value: { type: textColumn(row, "type"), bytes: bytesColumn(row, "blob") },
  };
}
