/**
 * Where BullMQ keeps its queues: the store's Redis, under the store's key prefix, so one
 * `?prefix=` separates whole deployments (queues included) on a shared Redis.
 */
import { parseStoreUrl } from "@switchboard/core/config";
import type { RedisOptions } from "bullmq";

export interface BullConnection {
  readonly connection: RedisOptions;
  /** BullMQ's own key prefix (its keys are `<prefix>:<queue>:…`). */
  readonly prefix: string;
  /** host[:port], safe to show. */
  readonly host: string;
  /** The Redis URL, for connections of our own beside BullMQ's. */
  readonly url: string;
  /** The store's own key prefix, for keys the cluster keeps beside BullMQ's (leader leases). */
  readonly keyPrefix: string;
}

/**
 * BullMQ's own reconnect backoff grows to 20 s, so after a Redis outage of a minute its workers
 * and queues came back up to 20 s after the store (whose backoff stops at 5 s): queued drains and
 * announcements waited that long for nothing. A reconnect attempt costs one refused connection.
 */
const MAX_RECONNECT_DELAY_MS = 2_000;

export function reconnectDelayMs(attempt: number): number {
  return Math.min(50 * 2 ** attempt, MAX_RECONNECT_DELAY_MS);
}

export function bullConnectionFor(storeUrl: string, cwd: string): BullConnection {
  const location = parseStoreUrl(storeUrl, cwd);
  if (location.kind !== "redis")
    throw new Error(`the ingress and worker roles need a Redis store; got ${location.kind}`);
  return {
    // Workers block on Redis; BullMQ requires commands to wait for a reconnect instead of failing.
    connection: {
      url: location.clientUrl,
      maxRetriesPerRequest: null,
      connectionName: "switchboard-bullmq",
      retryStrategy: reconnectDelayMs,
    },
    prefix: `${location.keyPrefix}bull`,
    host: location.host,
    url: location.clientUrl,
    keyPrefix: location.keyPrefix,
  };
}
