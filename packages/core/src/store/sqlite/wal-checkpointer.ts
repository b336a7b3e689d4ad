/**
 * WAL checkpoints off the event loop. In WAL mode every commit appends the pages it changed to the
 * log, and by default the connection that commits past 1,000 logged pages copies the log back into
 * the file and fsyncs both, inside that COMMIT. For the embedded store that connection is the
 * event loop's: under load it copied once every ~15 events, 5–19 ms each, two thirds of the time
 * all commits took (1,041 of 1,537 ms over 1,700 Slack events at 50 in flight, 2 × AMD EPYC), and
 * every acknowledgement and turn waited behind it.
 *
 * So the store's connection never checkpoints (`wal_autocheckpoint = 0`); a worker thread with a
 * connection of its own does (wal-checkpoint-worker.ts), PASSIVE — it takes no write lock, so the
 * store's commits go on meanwhile. Durability is SQLite's either way: a checkpoint only moves
 * committed pages from the log into the file.
 *
 * If the thread fails or stops, the connection checkpoints by itself again (SQLite's default of
 * 1,000 pages) and `onProblem` says so: the log never grows without bound.
 */
import type { DatabaseSync } from "node:sqlite";
import { Worker } from "node:worker_threads";
import type { WalCheckpointJob, WalCheckpointReport } from "./wal-checkpoint-worker.ts";

/** The worker's file: `.ts` when run from source (Node strips the types), `.js` once built. */
const WORKER_URL = new URL(
  import.meta.url.endsWith(".ts") ? "./wal-checkpoint-worker.ts" : "./wal-checkpoint-worker.js",
  import.meta.url,
);

/** SQLite's own threshold, in pages, for a connection that checkpoints by itself. */
export const SQLITE_AUTOCHECKPOINT_PAGES = 1_000;

/**
 * How long after a connection opens its checkpoints move to the thread (`startAfter`): a command
 * that opens the store for a moment never pays for a thread (~30 ms of CPU to start it), a running
 * process does from its first second on. Until then the connection checkpoints by itself.
 */
export const WAL_THREAD_DELAY_MS = 1_000;

export interface WalCheckpointerOptions {
  /** Pages a round should copy (SQLite's own threshold by default); the wait between rounds follows. */
  readonly pagesPerRound?: number;
  /** The shortest wait between rounds (a busy log), and the longest (a quiet one). */
  readonly minIntervalMs?: number;
  readonly maxIntervalMs?: number;
  readonly busyTimeoutMs?: number;
  /** The thread failed or stopped; the connection checkpoints by itself from now on. */
  readonly onProblem: (error: Error) => void;
  /** Each round that copied pages (for tests and metrics). */
  readonly onCheckpoint?: (report: { readonly frames: number; readonly walFrames: number }) => void;
}

export class WalCheckpointer {
  readonly #db: DatabaseSync;
  readonly #path: string;
  readonly #options: WalCheckpointerOptions;
  #worker: Worker | undefined;
  #startTimer: NodeJS.Timeout | undefined;
  #stopping = false;

  /** For `db`, a connection to `path`; nothing changes until `start()`. */
  constructor(db: DatabaseSync, path: string, options: WalCheckpointerOptions) {
    this.#db = db;
    this.#path = path;
    this.#options = options;
  }

  /** Whether the thread does the checkpoints now (false before it started and after it stopped). */
  get running(): boolean {
    return this.#worker !== undefined && !this.#stopping;
  }

  /** Starts the thread after `delayMs` (a timer that never keeps the process alive). */
  startAfter(delayMs: number): void {
    clearTimeout(this.#startTimer);
    this.#startTimer = setTimeout(() => this.start(), delayMs);
    this.#startTimer.unref();
  }

  /** Starts the thread and turns the connection's own checkpoints off (once; not after `stop()`). */
  start(): void {
    if (this.#worker || this.#stopping || !this.#db.isOpen) return;
    const options = this.#options;
    const job: WalCheckpointJob = {
      path: this.#path,
      pagesPerRound: options.pagesPerRound ?? SQLITE_AUTOCHECKPOINT_PAGES,
      minIntervalMs: options.minIntervalMs ?? 50,
      maxIntervalMs: options.maxIntervalMs ?? 1_000,
      busyTimeoutMs: options.busyTimeoutMs ?? 5_000,
    };
    const worker = new Worker(WORKER_URL, {
      workerData: job,
      // It allocates a row of numbers per round: a small heap, whatever the process's own flags ask.
      resourceLimits: { maxYoungGenerationSizeMb: 2, maxOldGenerationSizeMb: 16 },
    });
    this.#worker = worker;
    worker.unref();
    this.#db.exec("PRAGMA wal_autocheckpoint = 0");
    const giveUp = (error: Error) => {
      if (this.#stopping) return;
      this.#stopping = true;
      if (this.#db.isOpen) this.#db.exec(`PRAGMA wal_autocheckpoint = ${SQLITE_AUTOCHECKPOINT_PAGES}`);
      options.onProblem(
        new Error(
          `checkpointing ${this.#path} in the background stopped; its connection checkpoints by itself from now on (on the event loop)`,
          { cause: error },
        ),
      );
      void worker.terminate();
    };
    worker.on("message", (report: WalCheckpointReport) => {
      if (report.kind === "checkpointed") options.onCheckpoint?.(report);
      else giveUp(new Error(report.message));
    });
    worker.on("error", giveUp);
    worker.on("exit", (code) => giveUp(new Error(`the checkpoint thread exited (code ${code})`)));
  }

  /** Ends the thread; call before closing the connection (whose close then checkpoints what is left). */
  async stop(): Promise<void> {
    this.#stopping = true;
    clearTimeout(this.#startTimer);
    await this.#worker?.terminate();
  }
}
