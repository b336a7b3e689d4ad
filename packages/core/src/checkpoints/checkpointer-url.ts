import { maskStoreUrl, parseRedisUrl, parseSqlitePath, SAFE_KEY_PART } from "../store/store-url.ts";
import { CheckpointerUrlError } from "./errors.ts";

/** Where a checkpointer URL points, decoded once. */
export type CheckpointerLocation =
  | { readonly kind: "sqlite"; readonly path: string }
  | {
      readonly kind: "redis";
      readonly clientUrl: string;
      /** The store's `?prefix=` when the URL carries one: checkpoints then live beneath it. */
      readonly storePrefix: string | undefined;
    }
  | { readonly kind: "postgres"; readonly connectionString: string }
  | { readonly kind: "memory" };

/** Same rule as the store's prefixes: no glob characters in SCAN patterns. */
export const SAFE_KEY_PREFIX = SAFE_KEY_PART;

/** The URL with any password replaced by `***`, safe to log. */
export const maskUrlPassword = maskStoreUrl;

/** Decodes a checkpointer URL; relative SQLite paths resolve against `cwd`. */
export function parseCheckpointerUrl(url: string, cwd: string): CheckpointerLocation {
  const fail = (reason: string): never => {
    throw new CheckpointerUrlError(maskUrlPassword(url), reason);
  };
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
  switch (scheme) {
    case "sqlite":
      return { kind: "sqlite", path: parseSqlitePath(url, cwd, fail) };
    case "redis":
    case "rediss": {
      const redis = parseRedisUrl(url, fail);
      return { kind: "redis", clientUrl: redis.clientUrl, storePrefix: redis.explicitPrefix };
    }
    case "postgres":
    case "postgresql":
      return postgresLocation(url, fail);
    case "memory":
      if (!/^memory:(\/\/)?$/i.test(url)) fail("memory:// takes no host, path or options");
      return { kind: "memory" };
    default:
      return fail(scheme === undefined ? "it has no scheme" : `unknown scheme "${scheme}:"`);
  }
}

function postgresLocation(url: string, fail: (reason: string) => never): CheckpointerLocation {
  const parsed = parseUrl(url, fail);
  if (parsed.hostname === "") fail("the Postgres URL names no host");
  if (parsed.pathname === "" || parsed.pathname === "/") fail("the Postgres URL names no database");
  return { kind: "postgres", connectionString: url };
}

function parseUrl(url: string, fail: (reason: string) => never): URL {
  try {
    return new URL(url);
  } catch {
    return fail("it is not a valid URL");
  }
}
