import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { DatabaseSync, type SQLInputValue } from "node:sqlite";
import type { RunnableConfig } from "@langchain/core/runnables";
import type {
  ChannelVersions,
  Checkpoint,
  CheckpointListOptions,
  CheckpointMetadata,
  CheckpointTuple,
  PendingWrite,
} from "@langchain/langgraph-checkpoint";
import { SqliteCommitGroup } from "../store/sqlite/sqlite-commit-group.ts";
import { inImmediateTransaction } from "../store/sqlite/sqlite-database.ts";
import type { SqliteConnection } from "../store/sqlite/sqlite-store.ts";
import { checkpointInBackground, type WalCheckpointer } from "../store/sqlite/wal-checkpointer.ts";
import {
  type CheckpointRecord,
  matchesMetadataFilter,
  RetainingCheckpointSaver,
  type RetainingSaverOptions,
  readSelector,
  type StoredBlob,
  type StoredCheckpoint,
  type StoredWrite,
} from "./retaining-saver.ts";
import { bytesColumn, textColumn } from "./sqlite-rows.ts";
import { createCheckpointTables } from "./sqlite-schema.ts";
import {
  CHECKPOINT_COLUMNS,
  checkpointParams,
  prepareStatements,
  toStored,
  toStoredWrite,
  writeParams,
} from "./sqlite-statements.ts";

export type SqliteSaverOptions = RetainingSaverOptions &
  (
    | {
        /** Database file (parent folders are created), or `:memory:`: opened on a connection of its own. */
        path: string;
        /** How long a write waits for another connection's lock before failing (default 5000 ms). */
        busyTimeoutMs?: number;
        /**
         * When given, the file's WAL checkpoints move to a thread of their own a second after it
         * opens (store/sqlite/wal-checkpointer.ts), and a failure of that thread is reported here.
         */
        onBackgroundError?: (error: Error) => void;
      }
    | {
        /** The store's connection to the same file: its tables are added there, and it stays the store's to close. */
        connection: SqliteConnection;
      }
  );

type Row = Record<string, unknown>;

/**
 * LangGraph checkpoints in a SQLite file through Node's built-in `node:sqlite` (no native build).
 * Channel values are stored once per version; each `put` keeps only the newest
 * `keepCheckpoints` checkpoints of its thread and namespace (see `retention.ts`).
 *
 * Every statement goes through a commit group (store/sqlite/sqlite-commit-group.ts), the store's
 * when the checkpoints live in the store's file: a write waits one turn of the event loop and lands
 * in one commit with the other writes of that turn, each `put` atomic in a savepoint of its own; a
 * read runs at once and sees every write issued before it.
 */
export class SqliteSaver extends RetainingCheckpointSaver {
  readonly path: string;
  private readonly db: DatabaseSync;
  private readonly commits: SqliteCommitGroup;
  /** False on the store's connection: the store closes it. */
  private readonly ownsConnection: boolean;
  private readonly statements: ReturnType<typeof prepareStatements>;
  /** The WAL checkpoints' thread of a file on its own connection, when asked for. */
  private readonly walCheckpoints: WalCheckpointer | undefined;

  constructor(options: SqliteSaverOptions) {
    super(options);
    if ("connection" in options) {
      this.path = options.connection.path;
      this.db = options.connection.db;
      this.commits = options.connection.commits;
      this.ownsConnection = false;
    } else {
      this.path = options.path;
      if (options.path !== ":memory:") mkdirSync(dirname(options.path), { recursive: true });
      this.db = new DatabaseSync(options.path);
      this.db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000))}`);
      this.db.exec("PRAGMA journal_mode = WAL");
      this.db.exec("PRAGMA synchronous = NORMAL");
      this.commits = new SqliteCommitGroup(this.db);
      this.ownsConnection = true;
      if (options.onBackgroundError)
        this.walCheckpoints = checkpointInBackground(this.db, options.path, options.onBackgroundError);
    }
    createCheckpointTables(this.db, this.path);
    this.statements = prepareStatements(this.db);
  }

  /** Whether a thread of its own checkpoints the file's write-ahead log now. */
  get checkpointsInBackground(): boolean {
    return this.walCheckpoints?.running ?? false;
  }

  async close(): Promise<void> {
    if (!this.ownsConnection || !this.db.isOpen) return;
    await this.walCheckpoints?.stop();
    this.commits.flushNow();
    this.db.close();
  }

  override async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const { threadId, namespace = "", checkpointId } = readSelector(config);
    if (threadId === undefined) return undefined;
    const found = await this.read(() => {
      const row =
        checkpointId === undefined
          ? this.statements.latest.get(threadId, namespace)
          : this.statements.one.get(threadId, namespace, checkpointId);
      return row === undefined ? undefined : this.rowsOf(row);
    });
    return found === undefined ? undefined : this.loadTuple(found);
  }

  override async *list(
    config: RunnableConfig,
    options: CheckpointListOptions = {},
  ): AsyncGenerator<CheckpointTuple> {
    const { threadId, namespace, checkpointId } = readSelector(config);
    const before = readSelector(options.before ?? {}).checkpointId;
    const conditions: string[] = [];
    const params: SQLInputValue[] = [];
    const where = (condition: string, value: string | undefined) => {
      if (value === undefined) return;
      conditions.push(condition);
      params.push(value);
    };
    where("thread_id = ?", threadId);
    where("checkpoint_ns = ?", namespace);
    where("checkpoint_id = ?", checkpointId);
    where("checkpoint_id < ?", before);
    const filtered = options.filter !== undefined && Object.keys(options.filter).length > 0;
    const limit =
      options.limit === undefined || filtered ? "" : ` LIMIT ${Math.max(0, Math.floor(options.limit))}`;
    const sql =
      `SELECT ${CHECKPOINT_COLUMNS} FROM checkpoints` +
      (conditions.length > 0 ? ` WHERE ${conditions.join(" AND ")}` : "") +
      ` ORDER BY checkpoint_id DESC${limit}`;
    // Read the rows first: the caller may write between two yields, and a statement left open
    // across writes on the same connection would see a moving table.
    const rows = await this.read(() => this.db.prepare(sql).all(...params));
    let remaining = options.limit ?? Number.POSITIVE_INFINITY;
    for (const row of rows) {
      if (remaining <= 0) return;
      if (filtered && !matchesMetadataFilter(await this.decodeMetadata(toStored(row)), options.filter))
        continue;
      remaining -= 1;
      yield await this.loadTuple(await this.read(() => this.rowsOf(row)));
    }
  }

  override async put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
  ): Promise<RunnableConfig> {
    // The write waits for its group's turn of the loop (as every store write does): a graph that
    // does no other I/O (a scripted model, a tool-free turn) still lets timers and sockets run, so
    // lock heartbeats never starve.
    const record = await this.encodeCheckpoint(config, checkpoint, metadata, newVersions);
    await this.transaction(() => {
      for (const blob of record.blobs) {
        this.statements.insertBlob.run(
          record.threadId,
          record.namespace,
          blob.channel,
          blob.version,
          blob.value.type,
          blob.value.bytes,
        );
      }
      this.statements.upsertCheckpoint.run(...checkpointParams(record));
      if (record.mayPrune) this.prune(record);
    });
    return {
      configurable: {
        thread_id: record.threadId,
        checkpoint_ns: record.namespace,
        checkpoint_id: record.checkpointId,
      },
    };
  }

  override async putWrites(
    config: RunnableConfig,
    writes: PendingWrite[],
    taskId: string,
    taskPath?: string,
  ): Promise<void> {
    const record = await this.encodeWrites(config, writes, taskId, taskPath);
    const statement = record.replaceExisting ? this.statements.upsertWrite : this.statements.insertWrite;
    await this.transaction(() => {
      for (const write of record.writes) statement.run(...writeParams(record, write));
    });
  }

  override async deleteThread(threadId: string): Promise<void> {
    await this.transaction(() => {
      for (const statement of this.statements.deleteThread) statement.run(threadId);
    });
  }

  /** Runs inside `put`'s transaction, so a reader never sees a checkpoint without its blobs. */
  private prune(record: CheckpointRecord): void {
    const { threadId, namespace } = record;
    let removed = Number(
      this.statements.pruneNamespace.run(threadId, namespace, this.keepCheckpoints).changes,
    );
    if (namespace === "") removed += Number(this.statements.pruneSubgraphs.run(threadId, threadId).changes);
    if (removed === 0) return;
    this.statements.deleteOrphanWrites.run(threadId);
    this.statements.deleteOrphanBlobs.run(threadId);
  }

  /** A checkpoint row with its blobs and pending writes, read together (synchronously: one snapshot). */
  private rowsOf(row: Row): CheckpointRows {
    const stored = toStored(row);
    const { threadId, namespace } = stored;
    const blobs = this.statements.blobs
      .all(textColumn(row, "channel_versions"), threadId, namespace)
      .map((blob) => ({
        channel: textColumn(blob, "channel"),
        value: { type: textColumn(blob, "type"), bytes: bytesColumn(blob, "blob") },
      }));
    return { stored, blobs, writes: this.writesOf(stored, stored.checkpointId) };
  }

  private writesOf(stored: StoredCheckpoint, checkpointId: string): StoredWrite[] {
    return this.statements.writes.all(stored.threadId, stored.namespace, checkpointId).map(toStoredWrite);
  }

  private loadTuple({ stored, blobs, writes }: CheckpointRows): Promise<CheckpointTuple> {
    const parent = stored.parentCheckpointId;
    return this.decodeTuple(stored, blobs, writes, async () =>
      parent === undefined ? [] : this.read(() => this.writesOf(stored, parent)),
    );
  }

  private read<Result>(work: () => Result): Promise<Result> {
    return this.commits.run(work, false);
  }

  /** `work`'s statements in one transaction of their own, or a savepoint of the group's. */
  private transaction(work: () => void): Promise<void> {
    return this.commits.run(() => inImmediateTransaction(this.db, work));
  }
}

interface CheckpointRows {
  readonly stored: StoredCheckpoint;
  readonly blobs: ReadonlyArray<Pick<StoredBlob, "channel" | "value">>;
  readonly writes: readonly StoredWrite[];
}
