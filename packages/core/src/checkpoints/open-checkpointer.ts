/**
 * One entry to every checkpointer backend. The Redis and Postgres savers, and their client
 * libraries, are imported only when a URL names them: loading them takes a noticeable part of
 * start-up, and most set-ups use one backend (the embedded default, SQLite, loads nothing extra).
 */
import { type BaseCheckpointSaver, MemorySaver } from "@langchain/langgraph-checkpoint";
import { createStreamLogger, type Logger } from "../runtime/logger.ts";
import { type SqliteConnection, SqliteStore } from "../store/sqlite/sqlite-store.ts";
import type { Store } from "../store/types.ts";
import {
  type CheckpointerLocation,
  maskUrlPassword,
  parseCheckpointerUrl,
  SAFE_KEY_PREFIX,
} from "./checkpointer-url.ts";
import { CheckpointerConnectionError, CheckpointOptionError, CheckpointSchemaError } from "./errors.ts";
import { DEFAULT_REDIS_CHECKPOINT_PREFIX } from "./redis-layout.ts";
import { resolveKeepCheckpoints } from "./retention.ts";
import { SqliteSaver } from "./sqlite-saver.ts";

export interface OpenCheckpointerOptions {
  /** Checkpoints kept per thread and namespace (default 5, at least 2); `Infinity` keeps all. */
  keepCheckpoints?: number;
  /** Redis key prefix; default `<store ?prefix=>checkpoint:` or `switchboard:checkpoint:`. */
  redisPrefix?: string;
  /** Postgres schema for the checkpoint tables (created when missing); default `public`. */
  postgresSchema?: string;
  /** Directory relative SQLite paths resolve against; default the working directory. */
  cwd?: string;
  /** Where connection trouble after start-up is reported; default a stderr logger. */
  logger?: Logger;
  /**
   * The store opened from the same configuration. When it is the embedded store on the same SQLite
   * file, the checkpoints share its connection (one page cache, the writes of a loop turn in one
   * commit) instead of opening a second one; the store then closes it.
   */
  store?: Store;
}

export interface OpenedCheckpointer {
  readonly saver: BaseCheckpointSaver;
  /** What was opened, safe to log (no password). */
  readonly description: string;
  close(): Promise<void>;
}

/**
 * The LangGraph checkpointer named by `url`: `sqlite://…` (embedded default), `redis://…`,
 * `postgres://…` or `memory://`. See `ACCEPTED_CHECKPOINTER_URLS` for the exact forms.
 */
export async function openCheckpointer(
  url: string,
  options: OpenCheckpointerOptions = {},
): Promise<OpenedCheckpointer> {
  const location = parseCheckpointerUrl(url, options.cwd ?? process.cwd());
  const keepCheckpoints = resolveKeepCheckpoints(options.keepCheckpoints);
  const window = Number.isFinite(keepCheckpoints)
    ? `keeping the newest ${keepCheckpoints} per thread`
    : "keeping every checkpoint";
  return openLocation(location, maskUrlPassword(url), keepCheckpoints, window, options);
}

async function openLocation(
  location: CheckpointerLocation,
  maskedUrl: string,
  keepCheckpoints: number,
  window: string,
  options: OpenCheckpointerOptions,
): Promise<OpenedCheckpointer> {
  switch (location.kind) {
    case "sqlite": {
      const shared = sharedConnection(options.store, location.path);
      const saver = openSqliteSaver(
        shared
          ? { connection: shared }
          : {
              path: location.path,
              // A file of its own has its own WAL thread, whose failures are reported here.
              onBackgroundError: (error) =>
                (options.logger ?? createStreamLogger()).error(
                  "SQLite checkpoint file: background work failed",
                  {
                    checkpointer: maskedUrl,
                    cause: error,
                  },
                ),
            },
        keepCheckpoints,
      );
      return {
        saver,
        description: `SQLite checkpoints in ${location.path}${shared ? " (on the store's connection)" : ""}, ${window}`,
        close: async () => saver.close(),
      };
    }
    case "redis": {
      const keyPrefix =
        options.redisPrefix ??
        (location.storePrefix === undefined
          ? DEFAULT_REDIS_CHECKPOINT_PREFIX
          : `${location.storePrefix}checkpoint:`);
      if (!SAFE_KEY_PREFIX.test(keyPrefix)) {
        throw new CheckpointOptionError(
          `redisPrefix ${JSON.stringify(keyPrefix)} may only hold letters, digits and _ . : -`,
        );
      }
      const logger = options.logger ?? createStreamLogger();
      const [{ connectRedis }, { RedisSaver }] = await Promise.all([
        import("../store/redis/redis-connection.ts"),
        import("./redis-saver.ts"),
      ]);
      const client = await connectRedis({
        clientUrl: location.clientUrl,
        host: new URL(location.clientUrl).host,
        clientName: `switchboard-checkpoints@${keyPrefix}`,
        onBackgroundError: (error) =>
          logger.error("Redis connection for checkpoints failed", { checkpointer: maskedUrl, cause: error }),
        startupError: (cause) =>
          new CheckpointerConnectionError(
            maskedUrl,
            "could not connect to Redis for checkpoints",
            "that Redis is running and reachable at that host and port, and that the user name, password, " +
              "database number and TLS choice (redis:// or rediss://) in the URL are right",
            { cause },
          ),
      });
      return {
        saver: new RedisSaver({ client, keyPrefix, keepCheckpoints }),
        description: `Redis checkpoints at ${maskedUrl} under "${keyPrefix}", ${window}`,
        close: async () => {
          if (client.isOpen) await client.close();
        },
      };
    }
    case "postgres": {
      const schema = options.postgresSchema ?? "public";
      const { openPostgresSaver } = await import("./postgres-saver.ts");
      const logger = options.logger ?? createStreamLogger();
      const saver = await openPostgresSaver({
        connectionString: location.connectionString,
        schema,
        keepCheckpoints,
        onBackgroundError: (error) =>
          logger.error("Postgres connection for checkpoints failed", {
            checkpointer: maskedUrl,
            cause: error,
          }),
      }).catch((error: unknown) => {
        if (error instanceof CheckpointOptionError) throw error;
        throw new CheckpointerConnectionError(
          maskedUrl,
          "could not open the Postgres checkpoint tables",
          "that Postgres is running at that host and port, that the user, password and database in the URL " +
            `are right, and that the user may create schema "${schema}" and tables in it`,
          { cause: error },
        );
      });
      return {
        saver,
        description: `Postgres checkpoints at ${maskedUrl} in schema "${schema}", ${window}`,
        close: () => saver.end(),
      };
    }
    case "memory":
      // LangGraph's in-process saver: nothing survives a restart and nothing is pruned.
      return {
        saver: new MemorySaver(),
        description: "in-memory checkpoints (lost when the process stops, never pruned)",
        close: async () => {},
      };
  }
}

/** The embedded store's connection when `store` is on the file at `path` (never an in-memory database). */
function sharedConnection(store: Store | undefined, path: string): SqliteConnection | undefined {
  if (!(store instanceof SqliteStore) || path === ":memory:") return undefined;
  return store.connection.path === path && store.connection.db.isOpen ? store.connection : undefined;
}

function openSqliteSaver(
  file: { path: string; onBackgroundError: (error: Error) => void } | { connection: SqliteConnection },
  keepCheckpoints: number,
): SqliteSaver {
  try {
    return new SqliteSaver({ ...file, keepCheckpoints });
  } catch (error) {
    if (error instanceof CheckpointSchemaError) throw error;
    const path = "path" in file ? file.path : file.connection.path;
    throw new CheckpointerConnectionError(
      path,
      "could not open the SQLite checkpoint file",
      "that the folder exists or can be created, that this process may write there, " +
        "and that the file is a SQLite database",
      { cause: error },
    );
  }
}
