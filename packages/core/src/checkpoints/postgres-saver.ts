import type { RunnableConfig } from "@langchain/core/runnables";
import type {
  ChannelVersions,
  Checkpoint,
  CheckpointMetadata,
  CheckpointTuple,
  PendingWrite,
} from "@langchain/langgraph-checkpoint";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import pg from "pg";
import { CheckpointerUnavailableError, CheckpointOptionError } from "./errors.ts";
import { mayPruneAfter, resolveKeepCheckpoints } from "./retention.ts";

export interface PostgresSaverOptions {
  connectionString: string;
  /** Schema holding the checkpoint tables (created when missing); default `public`. */
  schema?: string;
  /** Checkpoints kept per thread and namespace (default 5, at least 2); `Infinity` keeps all. */
  keepCheckpoints?: number;
  /** Connection trouble of idle pooled connections (Postgres stopped or restarted). */
  onBackgroundError?: (error: Error) => void;
}

/** The schema name is written into SQL, so it is held to plain identifier characters. */
const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/**
 * LangGraph's official Postgres saver (its tables and migrations) plus our retention window:
 * after each `put`, one statement keeps the newest `keepCheckpoints` checkpoints of the thread's
 * namespace, drops subgraph checkpoints whose root checkpoint has left the window, and deletes
 * the writes and blobs only dropped checkpoints used.
 */
export class PrunedPostgresSaver extends PostgresSaver {
  readonly keepCheckpoints: number;
  readonly schema: string;
  private readonly prunePool: pg.Pool;
  private readonly pruneSql: string;

  constructor(pool: pg.Pool, options: { schema?: string; keepCheckpoints?: number } = {}) {
    const schema = options.schema ?? "public";
    if (!SCHEMA_NAME.test(schema)) {
      throw new CheckpointOptionError(
        `postgres schema ${JSON.stringify(schema)} must be a plain identifier (letters, digits, _)`,
      );
    }
    super(pool, undefined, { schema });
    this.schema = schema;
    this.keepCheckpoints = resolveKeepCheckpoints(options.keepCheckpoints);
    this.prunePool = pool;
    this.pruneSql = pruneStatement(schema);
  }

  override getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    return whileReachable("reading a checkpoint", () => super.getTuple(config));
  }

  override putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string): Promise<void> {
    return whileReachable("writing pending writes", () => super.putWrites(config, writes, taskId));
  }

  override async put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
  ): Promise<RunnableConfig> {
    // LangGraph's saver writes a checkpoint, its blobs and metadata in one transaction: a
    // connection lost midway leaves nothing half-written to read.
    const next = await whileReachable("writing a checkpoint", () =>
      super.put(config, checkpoint, metadata, newVersions),
    );
    if (mayPruneAfter(metadata, this.keepCheckpoints)) {
      const { thread_id, checkpoint_ns } = next.configurable ?? {};
      await whileReachable("pruning checkpoints", () =>
        this.prunePool.query(this.pruneSql, [thread_id, checkpoint_ns ?? "", this.keepCheckpoints]),
      );
    }
    return next;
  }
}

/** Connects, creates the schema and tables when missing (`setup()`), and returns the saver. */
export async function openPostgresSaver(options: PostgresSaverOptions): Promise<PrunedPostgresSaver> {
  const pool = new pg.Pool({ connectionString: options.connectionString });
  // An idle pooled connection that Postgres closes is reported here; without a listener it would
  // end the process. The pool opens a new connection for the next query.
  pool.on("error", (error) => options.onBackgroundError?.(error));
  try {
    const saver = new PrunedPostgresSaver(pool, options);
    await saver.setup();
    return saver;
  } catch (error) {
    await pool.end();
    throw error;
  }
}

/**
 * $1 thread, $2 namespace just written, $3 checkpoints to keep. All parts of one statement see
 * the same snapshot, so the blob clean-up excludes the doomed checkpoints itself.
 */
function pruneStatement(schema: string): string {
  const table = (name: string) => `"${schema}".${name}`;
  return `
WITH kept_root AS (
  SELECT min(checkpoint_id) AS oldest FROM (
    SELECT checkpoint_id FROM ${table("checkpoints")}
    WHERE thread_id = $1 AND checkpoint_ns = '' ORDER BY checkpoint_id DESC LIMIT $3
  ) AS newest
),
doomed AS (
  (SELECT checkpoint_ns, checkpoint_id FROM ${table("checkpoints")}
   WHERE thread_id = $1 AND checkpoint_ns = $2 ORDER BY checkpoint_id DESC OFFSET $3)
  UNION ALL
  SELECT checkpoint_ns, checkpoint_id FROM ${table("checkpoints")}
  WHERE $2 = '' AND thread_id = $1 AND checkpoint_ns <> ''
    AND metadata->'parents'->>'' < (SELECT oldest FROM kept_root)
),
dropped_checkpoints AS (
  DELETE FROM ${table("checkpoints")} AS c USING doomed AS d
  WHERE c.thread_id = $1 AND c.checkpoint_ns = d.checkpoint_ns AND c.checkpoint_id = d.checkpoint_id
),
dropped_writes AS (
  DELETE FROM ${table("checkpoint_writes")} AS w USING doomed AS d
  WHERE w.thread_id = $1 AND w.checkpoint_ns = d.checkpoint_ns AND w.checkpoint_id = d.checkpoint_id
)
DELETE FROM ${table("checkpoint_blobs")} AS b
WHERE b.thread_id = $1
  AND b.checkpoint_ns IN (SELECT checkpoint_ns FROM doomed)
  AND NOT EXISTS (
    SELECT 1 FROM ${table("checkpoints")} AS c
    WHERE c.thread_id = $1 AND c.checkpoint_ns = b.checkpoint_ns
      AND (c.checkpoint_ns, c.checkpoint_id) NOT IN (SELECT checkpoint_ns, checkpoint_id FROM doomed)
      AND c.checkpoint->'channel_versions'->>b.channel = b.version
  )`;
}

/** Errors that say the database could not be reached, not that a statement was wrong. */
const CONNECTION_ERROR_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "ENOTFOUND",
  "EHOSTUNREACH",
]);

function isConnectionError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string") {
    if (CONNECTION_ERROR_CODES.has(code)) return true;
    // SQLSTATE class 08 (connection exception), 57P01–57P03 (shutting down, cannot connect now).
    if (code.startsWith("08") || /^57P0[1-3]$/.test(code)) return true;
  }
  if (
    /Connection terminated|connection timeout|Client has encountered a connection error/i.test(error.message)
  )
    return true;
  return error instanceof AggregateError && error.errors.some(isConnectionError);
}

async function whileReachable<Result>(operation: string, work: () => Promise<Result>): Promise<Result> {
  try {
    return await work();
  } catch (error) {
    throw isConnectionError(error) ? new CheckpointerUnavailableError(operation, { cause: error }) : error;
  }
}
