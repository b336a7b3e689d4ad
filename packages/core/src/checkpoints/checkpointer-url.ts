import { isAbsolute, resolve } from "node:path";
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

/**
 * Prefixes end up in SCAN MATCH patterns (clean-up, tests), so glob characters would let one
 * deployment's clean-up reach another's keys. Same rule as the store's prefixes.
 */
export const SAFE_KEY_PREFIX = /^[A-Za-z0-9_.:-]*$/;

/** The URL with any password replaced by `***`, safe to log. */
export function maskUrlPassword(url: string): string {
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

/** Decodes a checkpointer URL; relative SQLite paths resolve against `cwd`. */
export function parseCheckpointerUrl(url: string, cwd: string): CheckpointerLocation {
  const fail = (reason: string): never => {
    throw new CheckpointerUrlError(maskUrlPassword(url), reason);
  };
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
  switch (scheme) {
    case "sqlite":
      return { kind: "sqlite", path: sqlitePath(url, cwd, fail) };
    case "redis":
    case "rediss":
      return redisLocation(url, fail);
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

function sqlitePath(url: string, cwd: string, fail: (reason: string) => never): string {
  if (/^sqlite::memory:$/i.test(url)) return ":memory:";
  const match = /^sqlite:\/\/(.*)$/is.exec(url);
  if (!match) return fail('SQLite URLs start with "sqlite://"');
  const path = match[1] ?? "";
  if (path === "" || path.endsWith("/")) fail("the SQLite URL names no database file");
  return isAbsolute(path) ? path : resolve(cwd, path);
}

function redisLocation(url: string, fail: (reason: string) => never): CheckpointerLocation {
  const parsed = parseUrl(url, fail);
  if (parsed.hostname === "") fail("the Redis URL names no host");
  for (const name of parsed.searchParams.keys()) {
    if (name !== "prefix") fail(`unknown option "?${name}=" (only "?prefix=" is understood)`);
  }
  const storePrefix = parsed.searchParams.get("prefix") ?? undefined;
  if (storePrefix !== undefined && !SAFE_KEY_PREFIX.test(storePrefix)) {
    fail("the key prefix may only hold letters, digits and _ . : -");
  }
  parsed.search = "";
  return { kind: "redis", clientUrl: parsed.toString(), storePrefix };
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
