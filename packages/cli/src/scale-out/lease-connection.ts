/**
 * The cluster's own Redis connection beside BullMQ's (leader leases, the doctor's look at them),
 * on the same client as the store (`@redis/client`). BullMQ is given connection options and opens
 * its own ioredis connections; we never hold an ioredis client.
 */
import { createClient, type RedisClientType } from "@redis/client";

export type LeaseRedis = RedisClientType;

export interface LeaseConnectionOptions {
  /** Shows up in CLIENT LIST. */
  readonly name: string;
  /**
   * How long one command may wait (queued while reconnecting, or unanswered) before it fails: a
   * round that fails is retried by the next one, and a leader that cannot renew must find out
   * before its lease lapses.
   */
  readonly commandTimeoutMs: number;
  /** Connection trouble after the first connection (reconnects continue meanwhile). */
  readonly onError: (error: unknown) => void;
}

const MAX_RECONNECT_DELAY_MS = 2_000;

/**
 * Opens a connection and returns at once: commands sent before it is ready wait for it (up to the
 * command timeout). Dropped connections are retried with backoff.
 */
export function openLeaseConnection(url: string, options: LeaseConnectionOptions): LeaseRedis {
  const client: LeaseRedis = createClient({
    url,
    name: options.name,
    commandOptions: { timeout: options.commandTimeoutMs },
    socket: { reconnectStrategy: (retries) => Math.min(50 * 2 ** retries, MAX_RECONNECT_DELAY_MS) },
  });
  client.on("error", options.onError);
  client.connect().catch(options.onError);
  return client;
}

/** Closes the connection without waiting for replies (a stop, or a test's crash). */
export function closeLeaseConnection(client: LeaseRedis): void {
  if (client.isOpen) client.destroy();
}
