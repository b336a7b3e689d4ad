import { createClient, type RedisClientType } from "@redis/client";
import { recognizeOutages } from "../errors.ts";
import { isRedisConnectionError, noteRedisSocketFailure } from "./redis-errors.ts";

export type RedisConnection = RedisClientType;

/** Long enough for a remote server over TLS, short enough that a wrong host fails start-up quickly. */
const CONNECT_TIMEOUT_MS = 5_000;
const MAX_RECONNECT_DELAY_MS = 5_000;

export interface RedisConnectOptions {
  readonly clientUrl: string;
  /** host[:port], for messages (the URL may hold a password). */
  readonly host: string;
  /** Shows up in CLIENT LIST, so an operator can tell which deployment holds which connection. */
  readonly clientName: string;
  /** Dropped connections after start-up (they are retried with backoff meanwhile). */
  readonly onBackgroundError: (error: Error) => void;
  /** The error start-up reports when the first connection fails. */
  readonly startupError: (cause: unknown) => Error;
}

/**
 * Connects a Redis client (the store's, the checkpointer's). The first connection must succeed
 * (start-up reports why it did not); after that, dropped connections are retried with backoff and
 * reported to `onBackgroundError` while commands wait in the offline queue.
 */
export async function connectRedis(options: RedisConnectOptions): Promise<RedisConnection> {
  const { clientUrl, host, clientName, onBackgroundError } = options;
  // A command on the wire when this connection drops fails the turn's step, not the turn.
  recognizeOutages(isRedisConnectionError);
  let connected = false;
  const client: RedisConnection = createClient({
    url: clientUrl,
    name: clientName,
    socket: {
      connectTimeout: CONNECT_TIMEOUT_MS,
      reconnectStrategy: (retries, cause) =>
        connected ? Math.min(50 * 2 ** retries, MAX_RECONNECT_DELAY_MS) : cause,
    },
  });
  // Before the first connection the same failure rejects connect() below, so it is reported there.
  client.on("error", (error: unknown) => {
    // The commands on the wire are failed with this very error next: it must read as an outage.
    noteRedisSocketFailure(error);
    if (connected) onBackgroundError(new Error(`Redis connection to ${host} failed`, { cause: error }));
  });
  // Each keyv namespace adapter listens on the shared client; ten namespaces are normal, not a leak.
  client.setMaxListeners(0);
  try {
    await client.connect();
    connected = true;
    return client;
  } catch (error) {
    if (client.isOpen) client.destroy();
    throw options.startupError(error);
  }
}
