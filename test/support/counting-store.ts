import type { Store } from "@switchboard/core";
import type Keyv from "keyv";

/** Keyv methods that reach the backend; each call is one store operation. */
const KEYV_OPERATIONS = new Set([
  "get",
  "getMany",
  "set",
  "setMany",
  "has",
  "hasMany",
  "delete",
  "deleteMany",
  "clear",
]);

/**
 * A Store that counts every operation it passes on to the real one: keyv calls per namespace,
 * atomic operations, sorted-set reads and writes, and every entry a keyv iterator yields (a scan
 * costs one per stored entry, which is exactly what must not happen on a turn).
 */
export function countingStore(store: Store) {
  const counts = new Map<string, number>();
  const bump = (name: string, by = 1) => counts.set(name, (counts.get(name) ?? 0) + by);
  const wrapped = new Map<string, Keyv>();

  const counted = <Target extends object>(
    target: Target,
    label: string,
    operations?: Set<string>,
    overrides: Record<string, unknown> = {},
  ): Target =>
    new Proxy(target, {
      get(object, property, receiver) {
        if (typeof property === "string" && property in overrides) return overrides[property];
        const value: unknown = Reflect.get(object, property, receiver);
        if (typeof property !== "string" || typeof value !== "function") return value;
        if (operations && !operations.has(property)) return value.bind(object);
        return (...args: unknown[]) => {
          bump(`${label}.${property}`);
          return value.apply(object, args);
        };
      },
    });

  const namespace = <Value>(name: string): Keyv<Value> => {
    let keyv = wrapped.get(name);
    if (!keyv) {
      const inner = store.namespace<unknown>(name);
      const iterate = inner.iterator;
      // Counted per yielded entry: listing a namespace costs what the namespace holds.
      const iterator = iterate
        ? async function* (namespace?: string) {
            for await (const entry of iterate(namespace)) {
              bump(`kv:${name}.iterator-entry`);
              yield entry;
            }
          }
        : undefined;
      keyv = counted(inner, `kv:${name}`, KEYV_OPERATIONS, { iterator });
      wrapped.set(name, keyv);
    }
    return keyv as Keyv<Value>;
  };

  const countingView: Store = {
    description: store.description,
    namespace,
    atomic: counted(store.atomic, "atomic"),
    sortedSets: counted(store.sortedSets, "sorted"),
    close: () => store.close(),
  };
  return {
    store: countingView,
    total: () => [...counts.values()].reduce((sum, count) => sum + count, 0),
    byOperation: () => new Map([...counts].sort(([a], [b]) => a.localeCompare(b))),
    reset: () => counts.clear(),
  };
}
