/** The part of a core Store namespace (a Keyv) this package uses. */
export interface KeyValue {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string, ttlMs?: number): Promise<unknown>;
  delete(key: string): Promise<unknown>;
}

/** An in-process map, for a bot started without a store (tests, one-off runs): nothing survives a restart. */
export function memoryKeyValue(): KeyValue {
  const map = new Map<string, string>();
  return {
    get: async (key) => map.get(key),
    set: async (key, value) => map.set(key, value),
    delete: async (key) => map.delete(key),
  };
}
