import type Keyv from "keyv";

/**
 * The operations keyv cannot express atomically. One interface, two implementations
 * (SQLite transactions for the embedded store, Lua scripts on Redis), one shared test suite.
 */
export interface AtomicStore {
  /** Stores `value` under `key` for `ttlMs` unless the key is present; true when this call stored it. */
  setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean>;

  /** Takes the lock when free (or expired); returns its token, or null when someone else holds it. */
  acquireLock(key: string, ttlMs: number): Promise<string | null>;
  /** Pushes the expiry out by `ttlMs` if `token` still holds the lock; false when it was lost. */
  extendLock(key: string, token: string, ttlMs: number): Promise<boolean>;
  /** Frees the lock if `token` holds it; false when it had already expired or moved on. */
  releaseLock(key: string, token: string): Promise<boolean>;

  /** Appends to the FIFO queue `queue`. */
  enqueue(queue: string, item: string): Promise<void>;
  /** The oldest item, left in place until `ack`: a crash mid-work re-delivers rather than loses. */
  peek(queue: string): Promise<string | null>;
  /** Removes the oldest item (the one `peek` returned). */
  ack(queue: string): Promise<void>;
  /** Removes and returns every item, oldest first. */
  drain(queue: string): Promise<string[]>;
  queueLength(queue: string): Promise<number>;
  /** Names of queues that hold at least one item (for recovery after a restart). */
  nonEmptyQueues(): Promise<string[]>;
}

/** Everything the runtime persists, opened from one URL. */
export interface Store {
  /** The URL it was opened from, with any password removed (safe to log). */
  readonly description: string;
  /** A keyv view of one namespace: active agents, message index, requests, memory… */
  namespace<Value>(name: string): Keyv<Value>;
  readonly atomic: AtomicStore;
  close(): Promise<void>;
}

/** The store URL names no backend we support, or names one in a form we cannot read. */
export class StoreUrlError extends Error {
  /** The URL as given, with any password masked (it ends up in logs). */
  readonly url: string;
  constructor(url: string, reason: string) {
    super(`store URL ${JSON.stringify(url)} is not usable: ${reason}`);
    this.name = "StoreUrlError";
    this.url = url;
  }
}
