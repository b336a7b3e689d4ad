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
import { yieldToEventLoop } from "../runtime/event-loop.ts";
import {
  type CheckpointRecord,
  matchesMetadataFilter,
  RetainingCheckpointSaver,
  type RetainingSaverOptions,
  readSelector,
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

export interface SqliteSaverOptions extends RetainingSaverOptions {
  /** Database file (parent folders are created), or `:memory:`. */
  path: string;
  /** How long a write waits for another connection's lock before failing (default 5000 ms). */
  busyTimeoutMs?: number;
}

type Row = Record<string, unknown>;

/**
 * LangGraph checkpoints in a SQLite file through Node's built-in `node:sqlite` (no native build).
 * Channel values are stored once per version; each `put` keeps only the newest
 * `keepCheckpoints` checkpoints of its thread and namespace (see `retention.ts`).
 */
export class SqliteSaver extends RetainingCheckpointSaver {
  readonly path: string;
  private readonly db: DatabaseSync;
  private readonly statements: ReturnType<typeof prepareStatements>;

  constructor(options: SqliteSaverOptions) {
    super(options);
    this.path = options.path;
    if (options.path !== ":memory:") mkdirSync(dirname(options.path), { recursive: true });
    this.db = new DatabaseSync(options.path);
    this.db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000))}`);
    this.db.exec("PRAGMA journal_mode = WAL");
    this.db.exec("PRAGMA synchronous = NORMAL");
    createCheckpointTables(this.db, options.path);
    this.statements = prepareStatements(this.db);
  }

  close(): void {
    if (this.db.isOpen) this.db.close();
  }

  override async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    await yieldToEventLoop();
    const { threadId, namespace = "", checkpointId } = readSelector(config);
    if (threadId === undefined) return undefined;
    const row =
      checkpointId === undefined
        ? this.statements.latest.get(threadId, namespace)
        : this.statements.one.get(threadId, namespace, checkpointId);
    return row === undefined ? undefined : this.loadTuple(row);
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
    const rows = this.db.prepare(sql).all(...params);
    let remaining = options.limit ?? Number.POSITIVE_INFINITY;
    for (const row of rows) {
      if (remaining <= 0) return;
      if (filtered && !matchesMetadataFilter(await this.decodeMetadata(toStored(row)), options.filter))
        continue;
      remaining -= 1;
      yield await this.loadTuple(row);
    }
  }

  override async put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
  ): Promise<RunnableConfig> {
    // Everything here is synchronous, so a graph that does no other I/O (a scripted model, a
    // tool-free turn) would never let timers and sockets run: lock heartbeats would starve. The
    // one turn of the loop a put waits (as every store call does) keeps the process responsive;
    // a second, between encoding and writing, would only hold the answer back one more turn.
    await yieldToEventLoop();
    const record = await this.encodeCheckpoint(config, checkpoint, metadata, newVersions);
    this.transaction(() => {
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
    await yieldToEventLoop();
    const record = await this.encodeWrites(config, writes, taskId, taskPath);
    const statement = record.replaceExisting ? this.statements.upsertWrite : this.statements.insertWrite;
    this.transaction(() => {
      for (const write of record.writes) statement.run(...writeParams(record, write));
    });
  }

  override async deleteThread(threadId: string): Promise<void> {
    await yieldToEventLoop();
    this.transaction(() => {
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

  private async loadTuple(row: Row): Promise<CheckpointTuple> {
    const stored = toStored(row);
    const { threadId, namespace } = stored;
    const blobs = this.statements.blobs
      .all(textColumn(row, "channel_versions"), threadId, namespace)
      .map((blob) => ({
        channel: textColumn(blob, "channel"),
        value: { type: textColumn(blob, "type"), bytes: bytesColumn(blob, "blob") },
      }));
    const writesOf = (checkpointId: string) =>
      this.statements.writes.all(threadId, namespace, checkpointId).map(toStoredWrite);
    return this.decodeTuple(stored, blobs, writesOf(stored.checkpointId), async () =>
      stored.parentCheckpointId === undefined ? [] : writesOf(stored.parentCheckpointId),
    );
  }

  private transaction(work: () => void): void {
    this.db.exec("BEGIN IMMEDIATE");
    try {
      work();
      this.db.exec("COMMIT");
    } catch (error) {
      // SQLite may already have rolled back (a failed COMMIT); a second ROLLBACK would hide the cause.
      if (this.db.isTransaction) this.db.exec("ROLLBACK");
      throw error;
    }
  }
}
