import { describe, expect, it } from "vitest";
import { maskUrlPassword, parseCheckpointerUrl } from "./checkpointer-url.ts";
import { CheckpointerUrlError } from "./errors.ts";

const cwd = "/srv/switchboard";

describe("parseCheckpointerUrl", () => {
  it.each([
    ["sqlite://./data/switchboard.db", { kind: "sqlite", path: "/srv/switchboard/data/switchboard.db" }],
    ["sqlite://data/switchboard.db", { kind: "sqlite", path: "/srv/switchboard/data/switchboard.db" }],
    ["sqlite:///var/lib/switchboard/db.sqlite", { kind: "sqlite", path: "/var/lib/switchboard/db.sqlite" }],
    ["sqlite::memory:", { kind: "sqlite", path: ":memory:" }],
    [
      "redis://127.0.0.1:6379",
      { kind: "redis", clientUrl: "redis://127.0.0.1:6379", storePrefix: undefined },
    ],
    [
      "rediss://user:pw@cache.example:6380/2?prefix=team-a:",
      { kind: "redis", clientUrl: "rediss://user:pw@cache.example:6380/2", storePrefix: "team-a:" },
    ],
    [
      "postgres://postgres@127.0.0.1:5432/test",
      { kind: "postgres", connectionString: "postgres://postgres@127.0.0.1:5432/test" },
    ],
    [
      "postgresql://u:p@db.example/switchboard?sslmode=require",
      { kind: "postgres", connectionString: "postgresql://u:p@db.example/switchboard?sslmode=require" },
    ],
    ["memory://", { kind: "memory" }],
    ["memory:", { kind: "memory" }],
  ])("%s", (url, expected) => {
    expect(parseCheckpointerUrl(url, cwd)).toEqual(expected);
  });

  it.each([
    ["./data/switchboard.db", /has no scheme/],
    ["mysql://db/x", /unknown scheme "mysql:"/],
    ["sqlite:data.db", /start with "sqlite:\/\/"/],
    ["sqlite://", /names no database file/],
    ["sqlite://./data/", /names no database file/],
    ["redis://127.0.0.1?db=2", /unknown option "\?db="/],
    ["redis://127.0.0.1?prefix=a*", /key prefix may only hold/],
    ["postgres://127.0.0.1:5432", /names no database/],
    ["memory://somewhere", /takes no host/],
  ])("rejects %s, naming the URL and the accepted forms", (url, reason) => {
    const error = (() => {
      try {
        parseCheckpointerUrl(url, cwd);
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(CheckpointerUrlError);
    expect((error as Error).message).toMatch(reason);
    expect((error as Error).message).toContain(JSON.stringify(url));
    expect((error as Error).message).toContain("sqlite:///absolute/path.db");
  });

  it("never shows a password in its error", () => {
    expect(() => parseCheckpointerUrl("postgres://u:hunter2@db.example:5432", cwd)).toThrow(/u:\*\*\*@/);
  });
});

describe("maskUrlPassword", () => {
  it.each([
    ["postgres://u:hunter2@db.example/x", "postgres://u:***@db.example/x"],
    ["redis://:hunter2@cache:6379", "redis://:***@cache:6379"],
    ["redis://cache:6379", "redis://cache:6379"],
    ["sqlite://./data/x.db", "sqlite://./data/x.db"],
  ])("%s → %s", (url, masked) => {
    expect(maskUrlPassword(url)).toBe(masked);
  });
});
