import type Keyv from "keyv";
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
  readonly #cache = new Map<string, ActiveAgent | null>();
  readonly #capacity: number;
  readonly #cacheTtlMs: number;
  readonly #cachedAt = new Map<string, number>();

  constructor(store: Store, options: { capacity?: number; cacheTtlMs?: number } = {}) {
    this.#store = store.namespace<ActiveAgent>("active-agents");
    this.#capacity = options.capacity ?? 10_000;
    // Short: an instance that missed another's handoff or /supervisor catches up within this.
    this.#cacheTtlMs = options.cacheTtlMs ?? 2_000;
  }

  async get(key: string): Promise<ActiveAgent | undefined> {
    const cachedAt = this.#cachedAt.get(key);
    if (cachedAt !== undefined && Date.now() - cachedAt < this.#cacheTtlMs && this.#cache.has(key)) {
      return this.#cache.get(key) ?? undefined;
    }
    const stored = (await this.#store.get(key)) ?? null;
    this.#remember(key, stored);
    return stored ?? undefined;
  }

  async set(key: string, agent: string, now = Date.now()): Promise<ActiveAgent> {
    const entry = { agent, since: now };
    await this.#store.set(key, entry);
    this.#remember(key, entry);
    return entry;
  }

  async clear(key: string): Promise<void> {
    await this.#store.delete(key);
    this.#remember(key, null);
  }

  #remember(key: string, value: ActiveAgent | null): void {
    this.#cache.delete(key);
    this.#cache.set(key, value);
    this.#cachedAt.set(key, Date.now());
    if (this.#cache.size > this.#capacity) {
      const oldest = this.#cache.keys().next().value;
      if (oldest !== undefined) {
        this.#cache.delete(oldest);
        this.#cachedAt.delete(oldest);
      }
    }
  }
}
