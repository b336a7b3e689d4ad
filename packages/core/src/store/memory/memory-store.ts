import Keyv from "keyv";
import { keyvPerNamespace } from "../keyv-namespaces.ts";
import type { Store } from "../types.ts";
import { MemoryAtomicStore } from "./memory-atomic-store.ts";
import { MemorySortedSets } from "./memory-sorted-sets.ts";

/**
 * Everything in this process's memory and gone on exit: for tests. Each namespace gets its own
 * Map because keyv's `clear()` on a Map store empties the whole Map.
 */
export class MemoryStore implements Store {
  readonly description = "memory://";
  readonly atomic: MemoryAtomicStore;
  readonly namespace: <Value>(name: string) => Keyv<Value>;
  readonly sortedSets = new MemorySortedSets();

  constructor(options: { now?: () => number } = {}) {
    this.atomic = new MemoryAtomicStore(options);
    this.namespace = keyvPerNamespace(
      (name) => new Keyv({ store: new Map(), namespace: name, useKeyPrefix: false, throwOnErrors: true }),
    );
  }

  async close(): Promise<void> {}
}
