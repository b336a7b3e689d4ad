import type { DatabaseSync } from "node:sqlite";
import { AtOncePerLoopTurn, runningAsIntake } from "../../runtime/event-loop.ts";
import { asStoreError } from "../errors.ts";

interface Operation {
  readonly work: () => unknown;
  readonly writes: boolean;
  readonly resolve: (result: unknown) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Group commit for the embedded store: every operation that waits for the same turn of the event
 * loop runs in one transaction, committed once. A commit in WAL mode costs far more than the
 * statements in it (WAL frames, the write lock and the shared-memory index, taken and given back),
 * and a busy process issues dozens of store operations per loop turn — so a turn of the loop pays
 * one commit, not one per operation.
 *
 * What each caller keeps, unchanged:
 * - **Durability**: an operation's promise settles only after the transaction holding it committed.
 *   With WAL and `synchronous = NORMAL` (as before) a committed write survives the process being
 *   killed; a power cut can lose the last commits, never corrupt the file. Nobody is told a write
 *   is done before it is.
 * - **Atomicity** of each operation: a multi-statement operation runs in a savepoint inside the
 *   group (`inImmediateTransaction`), a failing statement is undone alone, and a failure that
 *   aborts the whole transaction fails every operation it undid.
 * - **Order**: operations run in the order they were issued; a later one reads what an earlier one wrote.
 * - **Yielding**: each write still waits one turn of the loop (the group's flush runs in
 *   `setImmediate`), so pending I/O — acknowledgements — goes first; intake's operations run at
 *   once, outside any group, as before (see runtime/event-loop.ts). A read with no write of this
 *   connection waiting runs at once (a read costs microseconds, a loop turn per read is what made a
 *   turn's dozen lookups slow); after `READS_AT_ONCE_PER_TURN` of them the next read waits for the
 *   loop to turn like a write, so a loop of reads still lets I/O in.
 *
 * The flush is synchronous from BEGIN to COMMIT, so no transaction is ever held across an await:
 * another connection to the file (another process's, the memory archive's) waits at most one flush.
 * Checkpoints kept in the store's file go through the store's group, on its connection.
 */
/** Reads run at once per turn of the event loop before the next one waits for the loop to turn. */
export const READS_AT_ONCE_PER_TURN = 32;

export class SqliteCommitGroup {
  readonly #db: DatabaseSync;
  #queued: Operation[] = [];
  #scheduled = false;
  readonly #readsAtOnce = new AtOncePerLoopTurn(READS_AT_ONCE_PER_TURN);

  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  /** Runs `work` (synchronous SQLite statements) in the next group; `writes: false` for pure reads. */
  run<Result>(work: () => Result, writes = true): Promise<Result> {
    if (runningAsIntake())
      return Promise.resolve()
        .then(work)
        .catch((error: unknown) => {
          throw asStoreError(error);
        });
    // With nothing of ours queued every earlier write has committed, so a read now sees them all.
    if (!writes && this.#queued.length === 0 && this.#readsAtOnce.take()) {
      return Promise.resolve()
        .then(() => {
          if (!this.#db.isOpen) throw new Error("the SQLite store is closed");
          return work();
        })
        .catch((error: unknown) => {
          throw asStoreError(error);
        });
    }
    return new Promise<Result>((resolve, reject) => {
      this.#queued.push({
        work,
        writes,
        resolve: resolve as (result: unknown) => void,
        // A full disk becomes a typed error: a turn leaves its work queued instead of failing it.
        reject: (error) => reject(asStoreError(error)),
      });
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  /** Runs what is queued now (before the connection closes: writes issued before a close still land). */
  flushNow(): void {
    if (this.#queued.length > 0) this.#flush();
  }

  #flush(): void {
    this.#scheduled = false;
    const operations = this.#queued;
    this.#queued = [];
    if (!this.#db.isOpen) {
      for (const operation of operations) operation.reject(new Error("the SQLite store is closed"));
      return;
    }
    // Reads alone need no transaction (and must not take the write lock from another process).
    if (!operations.some((operation) => operation.writes)) {
      for (const operation of operations) settleNow(operation);
      return;
    }
    let done: Array<{ operation: Operation; result: unknown }> = [];
    for (const [index, operation] of operations.entries()) {
      try {
        if (!this.#db.isTransaction) this.#db.exec("BEGIN IMMEDIATE");
      } catch (error) {
        // The write lock could not be had (another process held it past the busy timeout).
        for (const waiting of operations.slice(index)) waiting.reject(error);
        break;
      }
      try {
        done.push({ operation, result: operation.work() });
      } catch (error) {
        operation.reject(error);
        if (this.#db.isTransaction) continue;
        // The error rolled the whole transaction back: the operations before it were undone too.
        for (const undone of done) undone.operation.reject(error);
        done = [];
      }
    }
    if (!this.#db.isTransaction) return;
    try {
      this.#db.exec("COMMIT");
    } catch (error) {
      if (this.#db.isTransaction) this.#db.exec("ROLLBACK");
      for (const undone of done) undone.operation.reject(error);
      return;
    }
    for (const { operation, result } of done) operation.resolve(result);
  }
}

function settleNow(operation: Operation): void {
  try {
    operation.resolve(operation.work());
  } catch (error) {
    operation.reject(error);
  }
}
