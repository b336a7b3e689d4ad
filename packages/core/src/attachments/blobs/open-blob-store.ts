import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { StoreConnectionError } from "../../store/errors.ts";
import { maskStoreUrl, parseRedisUrl, parseStoreUrl } from "../../store/store-url.ts";
import { StoreUrlError } from "../../store/types.ts";
import type { BlobStore } from "./blob-store.ts";
import { FolderBlobStore } from "./folder-blob-store.ts";
import { MemoryBlobStore } from "./memory-blob-store.ts";

export interface OpenBlobStoreOptions {
  /** `attachments.blobs`; absent: chosen from the store URL. */
  readonly blobsUrl?: string;
  readonly storeUrl: string;
  readonly cwd: string;
  readonly retainDays: number;
  readonly onBackgroundError?: (error: Error) => void;
}

/**
 * The blob store the configuration names, or the one that fits the store: a folder `attachments/`
 * beside a SQLite file, the Redis store itself for Redis (a cluster's workers share it), memory for
 * `memory://` and `sqlite::memory:`.
 */
export async function openBlobStore(options: OpenBlobStoreOptions): Promise<BlobStore> {
  const url = options.blobsUrl;
  if (url === undefined) return openBeside(options);
  if (/^file:/i.test(url)) return new FolderBlobStore(fileURLToPath(url));
  if (/^memory:/i.test(url)) return new MemoryBlobStore();
  if (/^rediss?:/i.test(url))
    return openRedis(url, options, (reason) => {
      throw new StoreUrlError(maskStoreUrl(url), reason);
    });
  throw new StoreUrlError(url, "attachments.blobs must be file:///path, redis://… or memory://");
}

async function openBeside(options: OpenBlobStoreOptions): Promise<BlobStore> {
  const location = parseStoreUrl(options.storeUrl, options.cwd);
  switch (location.kind) {
    case "sqlite":
      return location.path === ":memory:"
        ? new MemoryBlobStore()
        : new FolderBlobStore(join(dirname(location.path), "attachments"));
    case "memory":
      return new MemoryBlobStore();
    case "redis":
      return openRedis(options.storeUrl, options, (reason) => {
        throw new StoreUrlError(maskStoreUrl(options.storeUrl), reason);
      });
  }
}

async function openRedis(
  url: string,
  options: OpenBlobStoreOptions,
  fail: (reason: string) => never,
): Promise<BlobStore> {
  const location = parseRedisUrl(url, fail);
  // Loaded only here: a set-up on the embedded store never loads the Redis client.
  const [{ connectRedis }, { RedisBlobStore }] = await Promise.all([
    import("../../store/redis/redis-connection.ts"),
    import("./redis-blob-store.ts"),
  ]);
  const client = await connectRedis({
    clientUrl: location.clientUrl,
    host: location.host,
    clientName: `switchboard-blobs@${location.keyPrefix}`,
    onBackgroundError: options.onBackgroundError ?? (() => {}),
    startupError: (cause) =>
      new StoreConnectionError(
        location.host,
        "could not connect to Redis for attachments",
        "that Redis is reachable",
        {
          cause,
        },
      ),
  });
  return new RedisBlobStore(client, {
    keyPrefix: location.keyPrefix,
    retainMs: options.retainDays * 24 * 60 * 60 * 1000,
    description: `redis ${maskStoreUrl(url)}`,
    ownsClient: true,
  });
}
