import KeyvRedis from "@keyv/redis";
import Keyv from "keyv";
import { StoreConnectionError } from "../errors.ts";
import { KEYV_OPTIONS } from "../keyv-json.ts";
import { keyvPerNamespace } from "../keyv-namespaces.ts";
import type { Store, StoreHealth } from "../types.ts";
import { RedisAtomicStore } from "./redis-atomic-store.ts";
import { connectRedis, type RedisConnection } from "./redis-connection.ts";
import { RedisSortedSets } from "./redis-sorted-sets.ts";
import { StoreEpoch } from "./store-epoch.ts";

export interface RedisStoreOptions {
  readonly clientUrl: string;
  readonly host: string;
  /** Start of every key this store writes; keyv namespaces live under `<prefix>kv:<name>::`. */
  readonly keyPrefix: string;
  readonly description: string;
  readonly onBackgroundError: (error: Error) => void;
}

/** The scaled-out store: keyv namespaces via @keyv/redis and Lua-backed atomics and sorted sets over ONE client. */
export class RedisStore implements Store {
  readonly description: string;
  readonly atomic: RedisAtomicStore;
  readonly namespace: <Value>(name: string) => Keyv<Value>;
  readonly sortedSets: RedisSortedSets;
  readonly health: StoreHealth;
  readonly #client: RedisConnection;
  readonly #epoch: StoreEpoch;

  private constructor(client: RedisConnection, options: RedisStoreOptions, epoch: StoreEpoch) {
    this.#client = client;
    this.health = epoch;
    this.#epoch = epoch;
    this.description = options.description;
    this.atomic = new RedisAtomicStore(client, options.keyPrefix);
    this.sortedSets = new RedisSortedSets(client, options.keyPrefix);
    this.namespace = keyvPerNamespace((name) => {
      const namespace = `${options.keyPrefix}kv:${name}`;
      const adapter = new KeyvRedis(client, { namespace, throwOnErrors: true });
      // keyv copies its namespace onto the adapter, so both must name the same one.
      return new Keyv(adapter, { namespace, ...KEYV_OPTIONS });
    });
  }

  static async open(options: RedisStoreOptions): Promise<RedisStore> {
    const client = await connectRedis({
      clientUrl: options.clientUrl,
      host: options.host,
      clientName: `switchboard@${options.keyPrefix}`,
      onBackgroundError: options.onBackgroundError,
      startupError: (cause) =>
        new StoreConnectionError(
          options.host,
          "could not connect to Redis",
          "that Redis is running and reachable at that host and port, and that the user name, password, " +
            "database number and TLS choice (redis:// or rediss://) in the store URL are right",
          { cause },
        ),
    });
    const epoch = await StoreEpoch.begin(client, `${options.keyPrefix}epoch`, ({ lostBefore }) =>
      options.onBackgroundError(
        new Error(
          `Redis came back without its data (restarted without persistence, or an empty replica): ` +
            `queued messages, conversations and schedules written before are gone; messages sent before ` +
            `${new Date(lostBefore).toISOString()} are not answered again`,
        ),
      ),
    );
    const store = new RedisStore(client, options, epoch);
    await store.atomic.migrateListQueues();
    return store;
  }

  async close(): Promise<void> {
    this.#epoch.stop();
    if (this.#client.isOpen) await this.#client.close();
  }
}
