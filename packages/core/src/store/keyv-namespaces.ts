import type Keyv from "keyv";
import { SAFE_KEY_PART } from "./store-url.ts";

/**
 * One Keyv per namespace name, created on first use and reused after, so every part of the
 * runtime asking for "sessions" shares the same instance (and the same adapter).
 */
export function keyvPerNamespace(create: (name: string) => Keyv): <Value>(name: string) => Keyv<Value> {
  const byName = new Map<string, Keyv>();
  return <Value>(name: string): Keyv<Value> => {
    let keyv = byName.get(name);
    if (keyv === undefined) {
      if (name === "" || !SAFE_KEY_PART.test(name)) {
        throw new RangeError(
          `namespace ${JSON.stringify(name)} is not allowed: use letters, digits and _ . : - only`,
        );
      }
      keyv = create(name);
      byName.set(name, keyv);
    }
    // The caller names the value type; keyv stores whatever it is given as serialised JSON.
    return keyv as Keyv<Value>;
  };
}
