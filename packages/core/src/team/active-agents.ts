import type Keyv from "keyv";
import { LRUCache } from "lru-cache";
import type { Store } from "../store/types.ts";

export interface ActiveAgent {
  readonly agent: string;
  /** Epoch ms of the handoff. */
  readonly since: number;
}

/**
 * Which agent answers each conversation. The store is the truth (shared by every instance,
 * surviving restarts); the in-process LRU only saves a read. A cached entry could be stale if
 * another instance changed it, so writes from any instance go to the store first.
 */
export class ActiveAgentStore {
  readonly #store: Keyv<ActiveAgent>;
  /** Absent when caching is off (a TTL of 0); a cached `agent: undefined` means "none stored". */
  readonly #cache: LRUCache<string, { readonly agent: ActiveAgent | undefined }> | undefined;

  constructor(store: Store, options: { capacity?: number; cacheTtlMs?: number } = {}) {
    this.#store = store.namespace<ActiveAgent>("active-agents");
    // Short: an instance that missed another's handoff or /supervisor catches up within this.
    const ttl = options.cacheTtlMs ?? 2_000;
    // Read at each call, so a test's fake Date moves it too.
    this.#cache =
      ttl > 0
        ? new LRUCache({
            max: options.capacity ?? 10_000,
            ttl,
            ttlResolution: 0,
            perf: { now: () => Date.now() },
          })
        : undefined;
  }

  async get(key: string): Promise<ActiveAgent | undefined> {
    const cached = this.#cache?.get(key);
    if (cached) return cached.agent;
    const stored = await this.#store.get(key);
    this.#cache?.set(key, { agent: stored });
    return stored;
  }

  async set(key: string, agent: string, now = Date.now()): Promise<ActiveAgent> {
    const entry = { agent, since: now };
    await this.#store.set(key, entry);
    this.#cache?.set(key, { agent: entry });
    return entry;
  }

  async clear(key: string): Promise<void> {
    await this.#store.delete(key);
    this.#cache?.set(key, { agent: undefined });
  }
}
