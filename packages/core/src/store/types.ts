import type Keyv from "keyv";
import type { SortedSets } from "./sorted-sets.ts";

/**
 * The operations keyv cannot express atomically. One interface, two implementations
 * (SQLite transactions for the embedded store, Lua scripts on Redis), one shared test suite.
 */
export interface AtomicStore {
  /** Stores `value` under `key` for `ttlMs` unless the key is present; true when this call stored it. */
  setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean>;

  /** Takes the lock when free (or expired); returns its token, or null when someone else holds it. */
  acquireLock(key: string, ttlMs: number): Promise<string | null>;
  /**
   * `acquireLock` and, in the same call, `peek` of the queue the lock guards: the holder's first
   * item without a second round trip. Null (and nothing read) when someone else holds the lock.
   */
  acquireLockAndPeek(key: string, queue: string, ttlMs: number): Promise<LockedQueue | null>;
  /** Pushes the expiry out by `ttlMs` if `token` still holds the lock; false when it was lost. */
  extendLock(key: string, token: string, ttlMs: number): Promise<boolean>;
  /** Frees the lock if `token` holds it; false when it had already expired or moved on. */
  releaseLock(key: string, token: string): Promise<boolean>;

  /**
   * The values `setIfAbsent` stored under `keys` and still live, in the order asked (undefined
   * where none is): who holds a claim, read without taking it.
   */
  marks(keys: readonly string[]): Promise<Array<string | undefined>>;

  /** Deletes `key` if a live mark is there; true when this call removed it (a flag taken once). */
  takeMark(key: string): Promise<boolean>;

  /**
   * Gives the live mark `setIfAbsent` stored under `key` a new life of `ttlMs`, if it still holds
   * `value` (a claim its holder keeps); false when it expired or holds another value.
   */
  renewMark(key: string, value: string, ttlMs: number): Promise<boolean>;

  /**
   * Adds `item` to `queue` in `order` (ascending; ties keep arrival order). With `dedupe`, the
   * set-if-absent mark and the enqueue are one atomic step: a duplicate is neither marked nor
   * queued twice, and a message is never marked seen without being queued. False for a duplicate.
   */
  enqueue(queue: string, entry: QueueInput): Promise<boolean>;
  /** The first item in order, left in place until `ack`: a crash mid-work re-delivers rather than loses. */
  peek(queue: string): Promise<QueueEntry | null>;
  /** Removes the entry `peek` returned (by id, whatever arrived before it since); returns how many remain. */
  ack(queue: string, id: string): Promise<number>;
  /**
   * `ack`, and when that left the queue empty, `releaseLock(lockKey, token)` in the same atomic
   * step: an item queued after it finds the lock free, one queued before it keeps the lock held.
   * Returns how many remain (0: the lock was released, or was no longer `token`'s).
   */
  ackAndReleaseIfEmpty(queue: string, id: string, lockKey: string, token: string): Promise<number>;
  /** Every entry, in order, left in place until each is acked (a crash mid-work re-delivers them all). */
  peekAll(queue: string): Promise<QueueEntry[]>;
  queueLength(queue: string): Promise<number>;
  /** Names of queues that hold at least one item (recovery; proportional to queues with work, not to history). */
  nonEmptyQueues(): Promise<string[]>;
}

export interface QueueInput {
  readonly item: string;
  /** Sort position, e.g. the platform's send time in epoch ms. */
  readonly order: number;
  readonly dedupe?: { readonly key: string; readonly ttlMs: number };
}

/** A lock just taken, and the first item of the queue it guards (null when the queue is empty). */
export interface LockedQueue {
  readonly token: string;
  readonly head: QueueEntry | null;
}

export interface QueueEntry {
  /** Identifies the entry for `ack`; opaque. */
  readonly id: string;
  readonly item: string;
}

/** A networked store's state as intake needs it (absent on the embedded stores: they go away only with the process). */
export interface StoreHealth {
  /** The connection is up now. */
  readonly available: boolean;
  /**
   * Set once the store came back without its data: messages sent before this (ms) may have been
   * answered from the lost data and are refused, so none is answered twice.
   */
  readonly dataLostBefore: number | undefined;
  /** How often the store was found to have lost its data since this process started. */
  readonly dataLosses: number;
}

/** Everything the runtime persists, opened from one URL. */
export interface Store {
  /** The URL it was opened from, with any password removed (safe to log). */
  readonly description: string;
  /** A keyv view of one namespace: active agents, message index, requests, memory… */
  namespace<Value>(name: string): Keyv<Value>;
  readonly atomic: AtomicStore;
  /** Score-ordered indexes (due times, per-conversation lists): what sweepers read instead of scanning. */
  readonly sortedSets: SortedSets;
  /**
   * True when writes sent in the same turn of the event loop land in one commit, so a crash keeps
   * all of them or none (the embedded SQLite store commits in groups): a caller that would order
   * two writes one after the other, for what a crash between them leaves, may send them together.
   * Absent or false: each write lands on its own, in no promised order unless awaited in turn.
   */
  readonly writesLandTogether?: boolean;
  /** Availability and data loss of a networked store (Redis); absent on the embedded ones. */
  readonly health?: StoreHealth;
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
