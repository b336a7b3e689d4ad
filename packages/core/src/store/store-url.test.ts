import { describe, expect, it } from "vitest";
import { DEFAULT_REDIS_KEY_PREFIX, maskStoreUrl, parseStoreUrl, type StoreLocation } from "./store-url.ts";
import { StoreUrlError } from "./types.ts";

const CWD = "/srv/switchboard";

describe("parseStoreUrl", () => {
  it.each<[string, StoreLocation]>([
    ["sqlite://./data/switchboard.db", { kind: "sqlite", path: "/srv/switchboard/data/switchboard.db" }],
    ["sqlite://data/switchboard.db", { kind: "sqlite", path: "/srv/switchboard/data/switchboard.db" }],
    ["sqlite://../shared/sb.db", { kind: "sqlite", path: "/srv/shared/sb.db" }],
    ["sqlite:///var/lib/switchboard/sb.db", { kind: "sqlite", path: "/var/lib/switchboard/sb.db" }],
    ["sqlite::memory:", { kind: "sqlite", path: ":memory:" }],
    ["memory://", { kind: "memory" }],
    [
      "redis://127.0.0.1:6379",
      {
        kind: "redis",
        clientUrl: "redis://127.0.0.1:6379",
        keyPrefix: DEFAULT_REDIS_KEY_PREFIX,
        explicitPrefix: undefined,
        host: "127.0.0.1:6379",
      },
    ],
    [
      "redis://:secret@cache.internal/2?prefix=team-a:",
      {
        kind: "redis",
        clientUrl: "redis://:secret@cache.internal/2",
        keyPrefix: "team-a:",
        explicitPrefix: "team-a:",
        host: "cache.internal",
      },
    ],
    [
      "rediss://user:pw@redis.example.com:6380?prefix=",
      {
        kind: "redis",
        clientUrl: "rediss://user:pw@redis.example.com:6380",
        keyPrefix: "",
        explicitPrefix: "",
        host: "redis.example.com:6380",
      },
    ],
  ])("reads %s", (url, expected) => {
    expect(parseStoreUrl(url, CWD)).toEqual(expected);
  });

  it.each([
    ["", "no scheme"],
    ["./data/switchboard.db", "no scheme"],
    ["postgres://localhost/db", 'unknown scheme "postgres:"'],
    ["sqlite:data.db", 'start with "sqlite://"'],
    ["sqlite://", "names no database file"],
    ["sqlite://./data/", "names no database file"],
    ["memory://somewhere", "takes no host"],
    ["redis://", "names no host"],
    ["redis://localhost?db=2", 'unknown option "?db="'],
    ["redis://localhost?prefix=team*", "key prefix may only hold"],
  ])("rejects %j (%s) and lists the accepted forms", (url, reason) => {
    const attempt = () => parseStoreUrl(url, CWD);
    expect(attempt).toThrow(StoreUrlError);
    expect(attempt).toThrow(reason);
    expect(attempt).toThrow("sqlite://./relative/path.db");
  });

  it("never repeats a password in its error", () => {
    expect(() => parseStoreUrl("redis://:hunter2@localhost?bogus=1", CWD)).toThrow(
      expect.objectContaining({
        url: "redis://:***@localhost?bogus=1",
        message: expect.not.stringContaining("hunter2"),
      }),
    );
  });
});

describe("maskStoreUrl", () => {
  it.each([
    ["redis://:hunter2@localhost:6379/0", "redis://:***@localhost:6379/0"],
    ["rediss://admin:hunter2@cache:6380?prefix=a:", "rediss://admin:***@cache:6380?prefix=a:"],
    ["redis://admin@cache:6379", "redis://admin@cache:6379"],
    ["redis://localhost:6379", "redis://localhost:6379"],
    ["sqlite://./data/switchboard.db", "sqlite://./data/switchboard.db"],
  ])("%s → %s", (url, masked) => {
    expect(maskStoreUrl(url)).toBe(masked);
  });
});
