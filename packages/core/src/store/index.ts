export { StoreConnectionError } from "./errors.ts";
export { MemoryAtomicStore } from "./memory/memory-atomic-store.ts";
export { type OpenStoreOptions, openStore } from "./open-store.ts";
export { RedisAtomicStore } from "./redis/redis-atomic-store.ts";
export type { ScoredMember, SortedSetChange, SortedSets } from "./sorted-sets.ts";
export { SqliteAtomicStore } from "./sqlite/sqlite-atomic-store.ts";
export {
  ACCEPTED_STORE_URLS,
  DEFAULT_REDIS_KEY_PREFIX,
  maskStoreUrl,
  parseStoreUrl,
  type RedisLocation,
} from "./store-url.ts";
export {
  type AtomicStore,
  type LockedQueue,
  type QueueEntry,
  type QueueInput,
  type Store,
  StoreUrlError,
} from "./types.ts";
