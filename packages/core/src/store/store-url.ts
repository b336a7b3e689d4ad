import { isAbsolute, resolve } from "node:path";
import { StoreUrlError } from "./types.ts";

/** Where a store URL points, decoded once so that opening a backend never re-parses strings. */
export type StoreLocation =
  | { readonly kind: "sqlite"; readonly path: string }
  | RedisLocation
  | { readonly kind: "memory" };

export interface RedisLocation {
  readonly kind: "redis";
  readonly clientUrl: string;
  readonly keyPrefix: string;
  /** The `?prefix=` exactly as given, when it was. */
  readonly explicitPrefix: string | undefined;
  readonly host: string;
}

export const ACCEPTED_STORE_URLS =
  "sqlite://./relative/path.db (relative to the working directory), sqlite:///absolute/path.db, " +
  "sqlite::memory:, redis://[user:password@]host[:port][/db][?prefix=name:], rediss://… (TLS), or memory://";

/** Every Redis key we write starts with this unless the URL says `?prefix=…`. */
export const DEFAULT_REDIS_KEY_PREFIX = "switchboard:";

/**
 * Prefixes (and namespace names) end up inside SCAN MATCH patterns, so glob characters
 * (`*`, `?`, `[`) would make one deployment's `clear()` reach into another's keys.
 */
export const SAFE_KEY_PART = /^[A-Za-z0-9_.:-]*$/;

const REDIS_QUERY_PARAMS = new Set(["prefix"]);

/** The URL with any password replaced by `***`, safe to log (store and checkpointer URLs alike). */
export function maskStoreUrl(url: string): string {
  if (!/^(rediss?|postgres(ql)?):\/\//i.test(url)) return url;
  try {
    const parsed = new URL(url);
    if (parsed.password === "") return url;
    parsed.password = "***";
    return parsed.toString();
  } catch {
    // Unparseable: hide everything between the scheme and the last `@`, where a password would be.
    return url.replace(/^([a-z]+:\/\/)[^/]*@/i, "$1***@");
  }
}

/** Decodes a store URL; relative SQLite paths resolve against `cwd`. */
export function parseStoreUrl(url: string, cwd: string): StoreLocation {
  const fail = (reason: string): never => {
    throw new StoreUrlError(maskStoreUrl(url), `${reason}; expected ${ACCEPTED_STORE_URLS}`);
  };
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
  if (scheme === "sqlite") return { kind: "sqlite", path: parseSqlitePath(url, cwd, fail) };
  if (scheme === "redis" || scheme === "rediss") return parseRedisUrl(url, fail);
  if (scheme === "memory") {
    if (!/^memory:(\/\/)?$/i.test(url)) fail("memory:// takes no host, path or options");
    return { kind: "memory" };
  }
  return fail(scheme === undefined ? "it has no scheme" : `unknown scheme "${scheme}:"`);
}

export function parseSqlitePath(url: string, cwd: string, fail: (reason: string) => never): string {
  if (/^sqlite::memory:$/i.test(url)) return ":memory:";
  const match = /^sqlite:\/\/(.*)$/is.exec(url);
  if (!match) return fail('SQLite URLs start with "sqlite://"');
  const path = match[1] ?? "";
  if (path === "" || path.endsWith("/")) fail("the SQLite URL names no database file");
  return isAbsolute(path) ? path : resolve(cwd, path);
}

export function parseRedisUrl(url: string, fail: (reason: string) => never): RedisLocation {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return fail("it is not a valid URL");
  }
  if (parsed.hostname === "") fail("the Redis URL names no host");
  for (const name of parsed.searchParams.keys()) {
    if (!REDIS_QUERY_PARAMS.has(name)) fail(`unknown option "?${name}=" (only "?prefix=" is understood)`);
  }
  const explicitPrefix = parsed.searchParams.get("prefix") ?? undefined;
  const keyPrefix = explicitPrefix ?? DEFAULT_REDIS_KEY_PREFIX;
  if (!SAFE_KEY_PART.test(keyPrefix)) fail("the key prefix may only hold letters, digits and _ . : -");
  parsed.search = "";
  return {
    kind: "redis",
    clientUrl: parsed.toString(),
    keyPrefix,
    explicitPrefix,
    host: parsed.port === "" ? parsed.hostname : `${parsed.hostname}:${parsed.port}`,
  };
}
