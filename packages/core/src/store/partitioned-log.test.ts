import { describe, expect, it } from "vitest";
import { PartitionedLog } from "./partitioned-log.ts";
import { countNamespaceGets, testStoreBackends } from "./test-backends.ts";

const TTL = 60_000;

const flat = async (log: PartitionedLog<string>, bucket: string) => (await log.read(bucket)).flat();

describe.each(testStoreBackends("partitioned-log"))("PartitionedLog on %s", (_name, open) => {
  it("a writer id drawn by this process appends to new buckets without reading a count first", async () => {
    const { store, cleanup } = await open();
    try {
      const counted = countNamespaceGets(store, "fresh-counts");
      const log = new PartitionedLog<string>(store, { name: "fresh", ttlMs: TTL });
      for (const bucket of ["run-1", "run-2", "run-3"]) {
        await log.append(bucket, `${bucket} first`);
        await log.append(bucket, `${bucket} second`);
      }
      expect(counted.reads()).toBe(0);
      expect(await flat(log, "run-2")).toEqual(["run-2 first", "run-2 second"]);
    } finally {
      await store.close();
      await cleanup();
    }
  });

  it("a writer id given again (another run of the same writer) reads its count and goes on after it", async () => {
    const { store, cleanup } = await open();
    try {
      const before = new PartitionedLog<string>(store, { name: "given", ttlMs: TTL, writerId: "w1" });
      await before.append("run-1", "one");
      await before.append("run-1", "two");
      const counted = countNamespaceGets(store, "given-counts");
      const after = new PartitionedLog<string>(store, { name: "given", ttlMs: TTL, writerId: "w1" });
      await after.append("run-1", "three");
      expect(counted.reads()).toBe(1);
      expect(await flat(after, "run-1")).toEqual(["one", "two", "three"]);
    } finally {
      await store.close();
      await cleanup();
    }
  });

  it("once a count is dropped from its cache, a bucket it does not know is read before appending", async () => {
    const { store, cleanup } = await open();
    try {
      const counted = countNamespaceGets(store, "small-counts");
      const log = new PartitionedLog<string>(store, { name: "small", ttlMs: TTL, cacheSize: 2 });
      await log.append("a", "a1");
      await log.append("b", "b1");
      expect(counted.reads()).toBe(0);
      await log.append("c", "c1"); // drops a's count
      await log.append("a", "a2");
      expect(counted.reads()).toBe(1);
      expect(await flat(log, "a")).toEqual(["a1", "a2"]);
      await log.append("d", "d1"); // unknown, and counts have been dropped: read, found empty
      expect(counted.reads()).toBe(2);
      expect(await flat(log, "d")).toEqual(["d1"]);
    } finally {
      await store.close();
      await cleanup();
    }
  });
});
