import type { RunnableConfig } from "@langchain/core/runnables";
import type { ChannelVersions, Checkpoint, CheckpointMetadata } from "@langchain/langgraph-checkpoint";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import pg from "pg";
import { CheckpointOptionError } from "./errors.ts";
import { mayPruneAfter, resolveKeepCheckpoints } from "./retention.ts";

export interface PostgresSaverOptions {
  connectionString: string;
  /** Schema holding the checkpoint tables (created when missing); default `public`. */
  schema?: string;
  /** Checkpoints kept per thread and namespace (default 5, at least 2); `Infinity` keeps all. */
  keepCheckpoints?: number;
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

  override async put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
  ): Promise<RunnableConfig> {
    const next = await super.put(config, checkpoint, metadata, newVersions);
    if (mayPruneAfter(metadata, this.keepCheckpoints)) {
      const { thread_id, checkpoint_ns } = next.configurable ?? {};
      await this.prunePool.query(this.pruneSql, [thread_id, checkpoint_ns ?? "", this.keepCheckpoints]);
    }
    return next;
  }
}

/** Connects, creates the schema and tables when missing (`setup()`), and returns the saver. */
export async function openPostgresSaver(options: PostgresSaverOptions): Promise<PrunedPostgresSaver> {
  const pool = new pg.Pool({ connectionString: options.connectionString });
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
