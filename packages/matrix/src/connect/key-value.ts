/** The part of a core Store namespace (a Keyv) this package uses. */
export interface KeyValue {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string, ttlMs?: number): Promise<unknown>;
  delete(key: string): Promise<unknown>;
}
