import { DatabaseSync } from "node:sqlite";
import { atMost, type Figure } from "./support/figures.ts";

/** Every stored byte of one thread in our SQLite checkpointer: checkpoints, metadata, channel values, writes. */
export function sqliteCheckpointBytes(path: string, threadId: string): number {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    const row = db
      .prepare(
        `SELECT
           (SELECT coalesce(sum(length(checkpoint) + length(metadata) + length(channel_versions)), 0)
              FROM checkpoints WHERE thread_id = ?1)
         + (SELECT coalesce(sum(length(blob)), 0) FROM checkpoint_blobs WHERE thread_id = ?1)
         + (SELECT coalesce(sum(length(blob)), 0) FROM checkpoint_writes WHERE thread_id = ?1) AS total`,
      )
      .get(threadId);
    return Number(row?.total ?? 0);
  } finally {
    db.close();
  }
}

/** Stored bytes of the long conversation at one turn, ours and the plain graph's (see long-thread.ts). */
export interface StorageSnapshot {
  readonly turn: number;
  readonly ours: number;
  readonly baseline: number;
}

export function storageFigures(at50: StorageSnapshot, at500: StorageSnapshot): Figure[] {
  const limit = 12 * at50.ours;
  return [
    {
      key: "checkpointBytesAt50",
      value: at50.ours,
      unit: "B",
      baseline: { label: "plain graph + MemorySaver", value: at50.baseline },
      note: "one conversation with memory off (the longest history), SQLite checkpointer keeping its default window of 5 checkpoints; every row of the thread",
    },
    {
      key: "checkpointBytesAt500",
      value: at500.ours,
      unit: "B",
      baseline: { label: "plain graph + MemorySaver", value: at500.baseline },
      target: { text: "≤ 12 × checkpointBytesAt50 (linear)", met: atMost(at500.ours, limit) },
      note: `growth 50 → 500 turns: ${(at500.ours / at50.ours).toFixed(1)}× (baseline ${(at500.baseline / at50.baseline).toFixed(1)}×)`,
    },
  ];
}
