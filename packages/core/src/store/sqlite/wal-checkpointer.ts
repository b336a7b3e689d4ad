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
 * If the thread fails, the connection checkpoints by itself again (SQLite's default of 1,000 pages)
 * and `onProblem` says so, so the log never grows without bound; a new thread is tried a minute
 * later (then two, four… up to an hour while it keeps failing).
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
  /** The thread failed; the connection checkpoints by itself until a new thread is tried. */
  readonly onProblem: (error: Error) => void;
  /** Each round that copied pages (for tests and metrics). */
  readonly onCheckpoint?: (report: { readonly frames: number; readonly walFrames: number }) => void;
}

/**
 * The WAL thread for `db`, a connection to the file at `path`, started `WAL_THREAD_DELAY_MS` from
 * now; none for an in-memory database (it has no log to share).
 */
export function checkpointInBackground(
  db: DatabaseSync,
  path: string,
  onProblem: (error: Error) => void,
): WalCheckpointer | undefined {
  if (path === ":memory:") return undefined;
  const checkpointer = new WalCheckpointer(db, path, { onProblem });
  checkpointer.startAfter(WAL_THREAD_DELAY_MS);
  return checkpointer;
}

/** After a failed thread, the wait before the next one is tried: doubled after each failure, up to an hour. */
export const WAL_THREAD_RETRY_MS = { first: 60_000, longest: 3_600_000 } as const;

export class WalCheckpointer {
  readonly #db: DatabaseSync;
  readonly #path: string;
  readonly #options: WalCheckpointerOptions;
  #worker: Worker | undefined;
  #startTimer: NodeJS.Timeout | undefined;
  #retryMs: number = WAL_THREAD_RETRY_MS.first;
  #stopped = false;

  /** For `db`, a connection to `path`; nothing changes until `start()`. */
  constructor(db: DatabaseSync, path: string, options: WalCheckpointerOptions) {
    this.#db = db;
    this.#path = path;
    this.#options = options;
  }

  /** Whether a thread does the checkpoints now (false before it started, after a failure and after `stop()`). */
  get running(): boolean {
    return this.#worker !== undefined;
  }

  /** Starts the thread after `delayMs` (a timer that never keeps the process alive). */
  startAfter(delayMs: number): void {
    if (this.#stopped) return;
    clearTimeout(this.#startTimer);
    this.#startTimer = setTimeout(() => this.start(), delayMs);
    this.#startTimer.unref();
  }

  /** Starts the thread and turns the connection's own checkpoints off (not while one runs, nor after `stop()`). */
  start(): void {
    if (this.#worker || this.#stopped || !this.#db.isOpen) return;
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
    worker.on("message", (report: WalCheckpointReport) => {
      if (report.kind === "checkpointed") {
        // A thread that copies is a healthy one: a later failure waits the shortest time again.
        this.#retryMs = WAL_THREAD_RETRY_MS.first;
        options.onCheckpoint?.(report);
      } else this.#failed(worker, new Error(report.message));
    });
    worker.on("error", (error) => this.#failed(worker, error));
    worker.on("exit", (code) =>
      this.#failed(worker, new Error(`the checkpoint thread exited (code ${code})`)),
    );
  }

  /**
   * The thread failed (a full disk, an unreadable file): the connection checkpoints by itself again,
   * so the log never grows without bound, and a new thread is tried later.
   */
  #failed(worker: Worker, error: Error): void {
    if (this.#worker !== worker || this.#stopped) return;
    this.#worker = undefined;
    void worker.terminate();
    if (this.#db.isOpen) this.#db.exec(`PRAGMA wal_autocheckpoint = ${SQLITE_AUTOCHECKPOINT_PAGES}`);
    const retryMs = this.#retryMs;
    this.#retryMs = Math.min(WAL_THREAD_RETRY_MS.longest, retryMs * 2);
    this.#options.onProblem(
      new Error(
        `checkpointing ${this.#path} in the background stopped; its connection checkpoints by itself (on the event loop) until a new thread is tried in ${Math.round(retryMs / 1000)} s`,
        { cause: error },
      ),
    );
    this.startAfter(retryMs);
  }

  /** Ends the thread for good; call before closing the connection (whose close then checkpoints what is left). */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#startTimer);
    const worker = this.#worker;
    this.#worker = undefined;
    await worker?.terminate();
  }
}
