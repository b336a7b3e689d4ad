/**
 * Runs inside a worker thread (see wal-checkpointer.ts): copies the write-ahead log of one SQLite
 * file back into the file, on a connection of its own, so the copy and its fsyncs never stop the
 * process's event loop. A PASSIVE checkpoint takes no write lock: the process's writers go on while
 * it runs, and what they add meanwhile is copied the next time.
 */
import { DatabaseSync } from "node:sqlite";
import { parentPort, workerData } from "node:worker_threads";

export interface WalCheckpointJob {
  readonly path: string;
  /** Pages a round should copy: the wait between rounds follows how fast the log grows. */
  readonly pagesPerRound: number;
  /** The shortest and the longest wait between rounds. */
  readonly minIntervalMs: number;
  readonly maxIntervalMs: number;
  readonly busyTimeoutMs: number;
}

export type WalCheckpointReport =
  /** A round copied `frames` pages; `walFrames` were in the log when it ran. */
  | { readonly kind: "checkpointed"; readonly frames: number; readonly walFrames: number }
  /** A round failed (the thread ends after this report). */
  | { readonly kind: "failed"; readonly message: string };

const job = workerData as WalCheckpointJob;
const port = parentPort;
if (!port) throw new Error("wal-checkpoint-worker.ts runs only as a worker thread");

const db = new DatabaseSync(job.path);
db.exec(`PRAGMA busy_timeout = ${job.busyTimeoutMs}`);
// This connection never writes rows; it must not checkpoint on its own schedule either.
db.exec("PRAGMA wal_autocheckpoint = 0");
const checkpoint = db.prepare("PRAGMA wal_checkpoint(PASSIVE)");

let wait = job.minIntervalMs;
/** The log's size and how much of it was copied, at the last round (both count from the log's start). */
let last = { walFrames: 0, checkpointed: 0 };

function round(): void {
  try {
    const row = checkpoint.get();
    const walFrames = Number(row?.log ?? 0);
    const checkpointed = Number(row?.checkpointed ?? 0);
    // A writer starts the log over once all of it was copied: then every copied frame is new.
    const frames = walFrames < last.walFrames ? checkpointed : Math.max(0, checkpointed - last.checkpointed);
    last = { walFrames, checkpointed };
    if (frames > 0)
      port?.postMessage({ kind: "checkpointed", frames, walFrames } satisfies WalCheckpointReport);
    // Each copy ends with an fsync of the log and of the file, and a page written again and again
    // is copied once per round: rounds of about `pagesPerRound` pages, as SQLite's own checkpoints
    // (every 1,000 pages), not many small ones. The wait moves by at most half or double a round.
    const scale = frames === 0 ? 2 : Math.min(2, Math.max(0.5, job.pagesPerRound / frames));
    wait = Math.min(job.maxIntervalMs, Math.max(job.minIntervalMs, wait * scale));
    setTimeout(round, wait);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    port?.postMessage({ kind: "failed", message } satisfies WalCheckpointReport);
    db.close();
  }
}

setTimeout(round, wait);
