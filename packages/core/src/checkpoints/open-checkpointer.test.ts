import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemorySaver } from "@langchain/langgraph-checkpoint";
import { afterAll, describe, expect, it } from "vitest";
import { createMemoryLogger } from "../runtime/logger.ts";
import { openStore } from "../store/open-store.ts";
import { CheckpointerConnectionError, CheckpointerUrlError, CheckpointOptionError } from "./errors.ts";
import { conversationGraph, runTurns } from "./graph-test-support.ts";
import { openCheckpointer } from "./open-checkpointer.ts";
import { PrunedPostgresSaver } from "./postgres-saver.ts";
import {
  dropTestSchema,
  TEST_POSTGRES_AVAILABLE,
  TEST_POSTGRES_URL,
  uniqueTestSchema,
} from "./postgres-test-support.ts";
import { RedisSaver } from "./redis-saver.ts";
import {
  connectTestRedis,
  deleteKeysUnder,
  keysUnder,
  TEST_REDIS_AVAILABLE,
  TEST_REDIS_URL,
  uniqueTestPrefix,
} from "./redis-test-support.ts";
import { SqliteSaver } from "./sqlite-saver.ts";

const folder = mkdtempSync(join(tmpdir(), "switchboard-open-checkpointer-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** Runs two turns through the opened saver: it must hold the conversation afterwards. */
async function holdsConversation(saver: Parameters<typeof conversationGraph>[0]): Promise<number> {
  const graph = conversationGraph(saver, { withSubgraph: false });
  await runTurns(graph, "matrix:!room%3Ahs:$root", 0, 2);
  const state = await graph.getState({ configurable: { thread_id: "matrix:!room%3Ahs:$root" } });
  return state.values.messages.length;
}

describe("openCheckpointer", () => {
  it("opens SQLite relative to cwd, creating the folders", async () => {
    const opened = await openCheckpointer("sqlite://./data/switchboard.db", {
      cwd: folder,
      keepCheckpoints: 3,
    });
    try {
      expect(opened.saver).toBeInstanceOf(SqliteSaver);
      expect((opened.saver as SqliteSaver).keepCheckpoints).toBe(3);
      expect(opened.description).toBe(
        `SQLite checkpoints in ${join(folder, "data", "switchboard.db")}, keeping the newest 3 per thread`,
      );
      expect(await holdsConversation(opened.saver)).toBe(4);
      expect(existsSync(join(folder, "data", "switchboard.db"))).toBe(true);
    } finally {
      await opened.close();
    }
  });

  it("puts checkpoints in the store's own SQLite file on the store's connection, and others on their own", async () => {
    const store = await openStore("sqlite://./shared/switchboard.db", { cwd: folder });
    const same = await openCheckpointer("sqlite://./shared/switchboard.db", { cwd: folder, store });
    const other = await openCheckpointer("sqlite://./shared/checkpoints.db", { cwd: folder, store });
    try {
      expect(same.description).toBe(
        `SQLite checkpoints in ${join(folder, "shared", "switchboard.db")} (on the store's connection), keeping the newest 5 per thread`,
      );
      expect(other.description).toBe(
        `SQLite checkpoints in ${join(folder, "shared", "checkpoints.db")}, keeping the newest 5 per thread`,
      );
      expect(await holdsConversation(same.saver)).toBe(4);
      expect(await holdsConversation(other.saver)).toBe(4);
      // The store's connection stays open for the store when the checkpointer closes.
      await same.close();
      await store.namespace<string>("still").set("open", "yes");
      expect(await store.namespace<string>("still").get("open")).toBe("yes");
    } finally {
      await other.close();
      await store.close();
    }
  });

  it.skipIf(!TEST_REDIS_AVAILABLE)("opens Redis under the given prefix", async () => {
    const redisPrefix = uniqueTestPrefix("open-checkpointer");
    const opened = await openCheckpointer(TEST_REDIS_URL, { redisPrefix });
    const inspector = await connectTestRedis();
    try {
      expect(opened.saver).toBeInstanceOf(RedisSaver);
      expect(opened.description).toBe(
        `Redis checkpoints at ${TEST_REDIS_URL} under "${redisPrefix}", keeping the newest 5 per thread`,
      );
      expect(await holdsConversation(opened.saver)).toBe(4);
      expect((await keysUnder(inspector, redisPrefix)).length).toBeGreaterThan(0);
    } finally {
      await opened.close();
      await deleteKeysUnder(inspector, redisPrefix);
      inspector.destroy();
    }
  });

  it.skipIf(!TEST_REDIS_AVAILABLE)(
    "puts Redis checkpoints beneath the store's ?prefix= when no prefix is given",
    async () => {
      const storePrefix = uniqueTestPrefix("store");
      const opened = await openCheckpointer(`${TEST_REDIS_URL}?prefix=${storePrefix}`);
      try {
        expect((opened.saver as RedisSaver).keyPrefix).toBe(`${storePrefix}checkpoint:`);
      } finally {
        await opened.close();
      }
    },
  );

  it.skipIf(!TEST_POSTGRES_AVAILABLE)("opens Postgres in the given schema, creating its tables", async () => {
    const postgresSchema = uniqueTestSchema("open");
    const opened = await openCheckpointer(TEST_POSTGRES_URL, { postgresSchema, keepCheckpoints: Infinity });
    try {
      expect(opened.saver).toBeInstanceOf(PrunedPostgresSaver);
      expect(opened.description).toBe(
        `Postgres checkpoints at ${TEST_POSTGRES_URL} in schema "${postgresSchema}", keeping every checkpoint`,
      );
      expect(await holdsConversation(opened.saver)).toBe(4);
    } finally {
      await opened.close();
      await dropTestSchema(postgresSchema);
    }
  });

  it("opens LangGraph's in-memory saver for memory://", async () => {
    const opened = await openCheckpointer("memory://");
    expect(opened.saver).toBeInstanceOf(MemorySaver);
    expect(await holdsConversation(opened.saver)).toBe(4);
    await opened.close();
  });

  it("names the URL and the accepted forms when it cannot understand the URL", async () => {
    await expect(openCheckpointer("mongodb://db/x")).rejects.toThrow(CheckpointerUrlError);
    await expect(openCheckpointer("mongodb://db/x")).rejects.toThrow(/"mongodb:\/\/db\/x".*postgres:\/\//);
  });

  it("refuses a window too small to keep the newest checkpoint's parent", async () => {
    await expect(openCheckpointer("memory://", { keepCheckpoints: 1 })).rejects.toThrow(
      CheckpointOptionError,
    );
  });

  it("refuses a Redis prefix with glob characters", async () => {
    await expect(openCheckpointer(TEST_REDIS_URL, { redisPrefix: "a*" })).rejects.toThrow(
      CheckpointOptionError,
    );
  });

  it("reports an unreachable Redis with what to check, without the password", async () => {
    const logger = createMemoryLogger();
    const failure = openCheckpointer("redis://:hunter2@127.0.0.1:1", { logger });
    await expect(failure).rejects.toThrow(CheckpointerConnectionError);
    await expect(failure).rejects.toThrow(/redis:\/\/:\*\*\*@127\.0\.0\.1:1.*Check that Redis is running/);
    await expect(failure).rejects.not.toThrow(/hunter2/);
  });

  it("reports a SQLite file it cannot open", async () => {
    const notADatabase = join(folder, "not-a-database.db");
    writeFileSync(notADatabase, "plain text, not SQLite ".repeat(100));
    const failure = openCheckpointer(`sqlite://${notADatabase}`);
    await expect(failure).rejects.toThrow(CheckpointerConnectionError);
    await expect(failure).rejects.toThrow(/not-a-database\.db.*file is a SQLite database/);
  });

  it.skipIf(!TEST_POSTGRES_AVAILABLE)("reports a Postgres database it cannot open", async () => {
    const missing = new URL(TEST_POSTGRES_URL);
    missing.pathname = "/no_such_database_here";
    const failure = openCheckpointer(missing.href);
    await expect(failure).rejects.toThrow(CheckpointerConnectionError);
    await expect(failure).rejects.toThrow(/no_such_database_here.*does not exist/);
  });
});
