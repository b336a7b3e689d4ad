import { createClient, type RedisClientType } from "@redis/client";
import { StoreConnectionError } from "../errors.ts";

export type RedisConnection = RedisClientType;

/** Long enough for a remote server over TLS, short enough that a wrong host fails start-up quickly. */
const CONNECT_TIMEOUT_MS = 5_000;
const MAX_RECONNECT_DELAY_MS = 5_000;

/**
 * Connects the one client the store shares between keyv and the atomic operations. The first
 * connection must succeed (start-up reports why it did not); after that, dropped connections are
 * retried with backoff and reported to `onBackgroundError` while commands wait in the offline queue.
 */
export async function connectRedis(
  clientUrl: string,
  host: string,
  clientName: string,
  onBackgroundError: (error: Error) => void,
): Promise<RedisConnection> {
  let connected = false;
  const client: RedisConnection = createClient({
    url: clientUrl,
    // Shows up in CLIENT LIST, so an operator can tell which deployment holds which connection.
    name: clientName,
    socket: {
      connectTimeout: CONNECT_TIMEOUT_MS,
      reconnectStrategy: (retries, cause) =>
        connected ? Math.min(50 * 2 ** retries, MAX_RECONNECT_DELAY_MS) : cause,
    },
  });
  // Before the first connection the same failure rejects connect() below, so it is reported there.
  client.on("error", (error: unknown) => {
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
    throw new StoreConnectionError(
      host,
      "could not connect to Redis",
      "that Redis is running and reachable at that host and port, and that the user name, password, " +
        "database number and TLS choice (redis:// or rediss://) in the store URL are right",
      { cause: error },
    );
  }
}
