import { parseStoreUrl } from "../../store/store-url.ts";
import type { Store } from "../../store/types.ts";
import type { ArchiveStore } from "./archive-store.ts";
import { KeyvArchiveStore } from "./keyv-archive-store.ts";
import { SqliteArchiveStore } from "./sqlite-archive-store.ts";

/**
 * The archive for the store a URL names: the embedded SQLite file gets our own FTS5 tables in the
 * same file; Redis and memory keep archived sessions in keyv namespaces of `store`.
 */
export function openArchiveStore(store: Store, storeUrl: string, cwd: string = process.cwd()): ArchiveStore {
  const location = parseStoreUrl(storeUrl, cwd);
  return location.kind === "sqlite" ? new SqliteArchiveStore(location.path) : new KeyvArchiveStore(store);
}
