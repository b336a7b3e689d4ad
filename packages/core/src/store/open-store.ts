import { createStreamLogger, type Logger } from "../runtime/logger.ts";
import { MemoryStore } from "./memory/memory-store.ts";
import { SqliteStore } from "./sqlite/sqlite-store.ts";
import { maskStoreUrl, parseStoreUrl } from "./store-url.ts";
import type { Store } from "./types.ts";

export interface OpenStoreOptions {
  /**
   * The clock for TTLs the store keeps itself (SQLite and memory atomics, SQLite keyv rows), so
   * tests can move time forward. Redis keeps its own time. Keyv also stamps values with Date.now().
   */
  readonly now?: () => number;
  /** Directory relative SQLite paths resolve against; defaults to the process's working directory. */
  readonly cwd?: string;
  /**
   * Where failures with no caller to throw to go (a dropped Redis connection being retried, a
   * failed background purge). Defaults to a stderr logger.
   */
  readonly logger?: Logger;
}

/**
 * Opens the store a URL names:
 * - `sqlite://./data/switchboard.db` (relative to `cwd`), `sqlite:///abs/path.db`, `sqlite::memory:` — embedded;
 * - `redis://[user:password@]host[:port][/db][?prefix=name:]` or `rediss://…` — shared by many workers;
 *   every key starts with `prefix` (default `switchboard:`) so deployments and test runs can share a server;
 * - `memory://` — in-process, for tests.
 * Throws StoreUrlError for a URL it cannot read and StoreConnectionError when the backend is unreachable.
 */
export async function openStore(url: string, options: OpenStoreOptions = {}): Promise<Store> {
  const location = parseStoreUrl(url, options.cwd ?? process.cwd());
  const description = maskStoreUrl(url);
  const logger = options.logger ?? createStreamLogger();
  const onBackgroundError = (error: Error) =>
    logger.error(error.message, { store: description, cause: error.cause });
  switch (location.kind) {
    case "sqlite":
      return new SqliteStore(location.path, {
        description: location.path === ":memory:" ? description : `sqlite://${location.path}`,
        onBackgroundError,
        ...(options.now ? { now: options.now } : {}),
      });
    case "redis": {
      // The Redis client is a large library; a set-up on the embedded store never loads it.
      const { RedisStore } = await import("./redis/redis-store.ts");
      return RedisStore.open({ ...location, description, onBackgroundError });
    }
    case "memory":
      return new MemoryStore(options.now ? { now: options.now } : {});
  }
}
