import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { openPostgresSaver, type PrunedPostgresSaver } from "./postgres-saver.ts";
import {
  dropTestSchema,
  storedBytesInSchema,
  TEST_POSTGRES_AVAILABLE,
  TEST_POSTGRES_URL,
  uniqueTestSchema,
} from "./postgres-test-support.ts";
import { RedisSaver } from "./redis-saver.ts";
import {
  connectTestRedis,
  deleteKeysUnder,
  storedBytesUnder,
  TEST_REDIS_AVAILABLE,
  uniqueTestPrefix,
} from "./redis-test-support.ts";
import { SqliteSaver } from "./sqlite-saver.ts";

/** One storage area of one backend, opened for a test. Test files only. */
export interface OpenedTestBackend {
  readonly saver: BaseCheckpointSaver;
  /** What the backend spends on this storage area (see each backend for what is counted). */
  storedBytes(): Promise<number>;
  /** A second saver over the same storage, as after a process restart. */
  reopen(): Promise<BaseCheckpointSaver>;
  /** Closes every saver opened here and removes the storage area. */
  dispose(): Promise<void>;
}

export interface TestBackend {
  readonly name: string;
  open(keepCheckpoints: number): Promise<OpenedTestBackend>;
}

const sqlite: TestBackend = {
  name: "sqlite",
  async open(keepCheckpoints) {
    const folder = mkdtempSync(join(tmpdir(), "switchboard-checkpoints-"));
    const path = join(folder, "checkpoints.db");
    const savers = [new SqliteSaver({ path, keepCheckpoints })];
    return {
      saver: savers[0]!,
      // Every stored byte: checkpoint rows, metadata, channel values and pending writes.
      async storedBytes() {
        const db = new DatabaseSync(path, { readOnly: true });
        try {
          const row = db
            .prepare(`SELECT
                (SELECT coalesce(sum(length(checkpoint) + length(metadata) + length(channel_versions)), 0)
                   FROM checkpoints)
              + (SELECT coalesce(sum(length(blob)), 0) FROM checkpoint_blobs)
              + (SELECT coalesce(sum(length(blob)), 0) FROM checkpoint_writes) AS total`)
            .get();
          return Number(row?.total ?? 0);
        } finally {
          db.close();
        }
      },
      async reopen() {
        const saver = new SqliteSaver({ path, keepCheckpoints });
        savers.push(saver);
        return saver;
      },
      async dispose() {
        for (const saver of savers) await saver.close();
        rmSync(folder, { recursive: true, force: true });
      },
    };
  },
};

const redis: TestBackend = {
  name: "redis",
  async open(keepCheckpoints) {
    const client = await connectTestRedis();
    const keyPrefix = uniqueTestPrefix("checkpoints");
    return {
      saver: new RedisSaver({ client, keyPrefix, keepCheckpoints }),
      // Key names, fields, values and members under the prefix (see storedBytesUnder).
      storedBytes: () => storedBytesUnder(client, keyPrefix),
      async reopen() {
        return new RedisSaver({ client, keyPrefix, keepCheckpoints });
      },
      async dispose() {
        await deleteKeysUnder(client, keyPrefix);
        client.destroy();
      },
    };
  },
};

const postgres: TestBackend = {
  name: "postgres",
  async open(keepCheckpoints) {
    const schema = uniqueTestSchema("checkpoints");
    const open = () => openPostgresSaver({ connectionString: TEST_POSTGRES_URL, schema, keepCheckpoints });
    const savers: PrunedPostgresSaver[] = [await open()];
    return {
      saver: savers[0]!,
      // Channel values, pending writes, and the checkpoint and metadata JSON.
      storedBytes: () => storedBytesInSchema(schema),
      async reopen() {
        const saver = await open();
        savers.push(saver);
        return saver;
      },
      async dispose() {
        for (const saver of savers) await saver.end();
        await dropTestSchema(schema);
      },
    };
  },
};

/** SQLite always; Redis and Postgres when this test run has them (the global setup says why not). */
export const TEST_BACKENDS: readonly TestBackend[] = [
  sqlite,
  ...(TEST_REDIS_AVAILABLE ? [redis] : []),
  ...(TEST_POSTGRES_AVAILABLE ? [postgres] : []),
];
