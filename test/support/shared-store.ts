import { join } from "node:path";
import { openStore, type Store, silentLogger } from "@switchboard/core";
import {
  removeRedisKeys,
  TEST_REDIS_AVAILABLE,
  TEST_REDIS_URL,
  tempDirectory,
  uniqueRedisPrefix,
} from "../../packages/core/src/store/test-backends.ts";

/** Two handles on one store: what an ingress and a worker of one deployment see. */
export interface SharedStore {
  readonly ingress: Store;
  readonly worker: Store;
  close(): Promise<void>;
}

export type SharedBackend = "sqlite" | "redis";

/** A SQLite file always; the test Redis when this run has one. */
export const SHARED_BACKENDS: readonly SharedBackend[] = TEST_REDIS_AVAILABLE
  ? ["sqlite", "redis"]
  : ["sqlite"];

export async function openSharedStore(backend: SharedBackend, label: string): Promise<SharedStore> {
  if (backend === "sqlite") {
    const directory = await tempDirectory();
    const url = `sqlite://${join(directory.path, "shared.db")}`;
    const [ingress, worker] = [await openStore(url), await openStore(url)];
    return {
      ingress,
      worker,
      async close() {
        await ingress.close();
        await worker.close();
        await directory.remove();
      },
    };
  }
  const prefix = uniqueRedisPrefix(label);
  const url = `${TEST_REDIS_URL}/?prefix=${prefix}`;
  const [ingress, worker] = [
    await openStore(url, { logger: silentLogger }),
    await openStore(url, { logger: silentLogger }),
  ];
  return {
    ingress,
    worker,
    async close() {
      await ingress.close();
      await worker.close();
      await removeRedisKeys(prefix);
    },
  };
}
