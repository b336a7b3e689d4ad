import { describe, expect, it, vi } from "vitest";
import { MemoryStore } from "./memory/memory-store.ts";
import { PartitionedLog } from "./partitioned-log.ts";
import { countNamespaceCalls, countNamespaceGets, testStoreBackends } from "./test-backends.ts";

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

  it("appends made while a write is on its way go out together: their items in order, one count", async () => {
    const { store, cleanup } = await open();
    try {
      const counts = countNamespaceCalls(store, "together-counts", "set");
      const log = new PartitionedLog<string>(store, { name: "together", ttlMs: TTL });
      const items = Array.from({ length: 50 }, (_, n) => `run-${n}`);
      await Promise.all(items.map((item) => log.append("hour:1", item)));
      // The first append's write, then one for the 49 that came while it was on its way.
      expect(counts.calls()).toBe(2);
      expect(await flat(log, "hour:1")).toEqual(items);
      await log.append("hour:1", "run-50");
      expect(await flat(log, "hour:1")).toEqual([...items, "run-50"]);
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

  it("a first append sends its slot's claim with its item and count: nothing waits for the claim", async () => {
    const { store, cleanup } = await open();
    try {
      const log = new PartitionedLog<string>(store, { name: "together", ttlMs: TTL });
      // The claim is held until the item and the count have been sent too.
      const claim = store.atomic.setIfAbsent.bind(store.atomic);
      let release: () => void = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      vi.spyOn(store.atomic, "setIfAbsent").mockImplementation(async (...args) => {
        await held;
        return claim(...args);
      });
      const itemWrites = vi.spyOn(store.namespace("together-items"), "set");
      const countWrites = vi.spyOn(store.namespace("together-counts"), "set");
      const appended = log.append("run-1", "first");
      await vi.waitFor(() => {
        expect(itemWrites).toHaveBeenCalledTimes(1);
        expect(countWrites).toHaveBeenCalledTimes(1);
      });
      release();
      await appended;
      expect(await flat(log, "run-1")).toEqual(["first"]);
    } finally {
      await store.close();
      await cleanup();
    }
  });

  it("two writers in one bucket hold one slot each, and a writer whose slot is taken takes the next", async () => {
    const { store, cleanup } = await open();
    try {
      const first = new PartitionedLog<string>(store, { name: "shared", ttlMs: TTL, writerId: "w1" });
      const second = new PartitionedLog<string>(store, { name: "shared", ttlMs: TTL, writerId: "w2" });
      await Promise.all([first.append("hour", "a"), second.append("hour", "b")]);
      await first.append("hour", "c");
      // w1 again in a new process: its slot is found as its own, no third slot is taken.
      const again = new PartitionedLog<string>(store, { name: "shared", ttlMs: TTL, writerId: "w1" });
      await again.append("hour", "d");
      expect(await store.atomic.marks(["shared:hour#0", "shared:hour#1", "shared:hour#2"])).toEqual(
        expect.arrayContaining(["w1", "w2", undefined]),
      );
      const partitions = await again.read("hour");
      expect(partitions.map((items) => items.join(""))).toEqual(expect.arrayContaining(["acd", "b"]));
      expect(partitions).toHaveLength(2);
    } finally {
      await store.close();
      await cleanup();
    }
  });
});

// Claims expire by the store's clock (faked here); the items' keyv entries by real time, so they
// stay while the claims that name their writers lapse — as for a bucket written to for weeks.
describe("PartitionedLog claims over a bucket's whole life", () => {
  const clockedStore = () => {
    const clock = { now: 0 };
    const store = new MemoryStore({ now: () => clock.now });
    return { clock, store, now: () => clock.now };
  };

  it("a writer that goes on appending past the retention keeps its slot, and readers keep finding it", async () => {
    const { clock, store, now } = clockedStore();
    const log = new PartitionedLog<string>(store, { name: "long", ttlMs: TTL, now });
    await log.append("dm", "first");
    for (let day = 1; day <= 30; day++) {
      clock.now = day * (TTL / 10);
      await log.append("dm", `day ${day}`);
    }
    const reader = new PartitionedLog<string>(store, { name: "long", ttlMs: TTL, now });
    expect(await flat(reader, "dm")).toHaveLength(31);
    expect(await store.atomic.marks(["long:dm#0", "long:dm#1"])).toEqual([log.writerId, undefined]);
  });

  it("lets the claim of a writer that stopped lapse with its items, and renews nothing it no longer holds", async () => {
    const { clock, store, now } = clockedStore();
    const stopped = new PartitionedLog<string>(store, { name: "gone", ttlMs: TTL, now, writerId: "w1" });
    await stopped.append("dm", "old");
    clock.now = TTL + 1;
    expect(await flat(stopped, "dm")).toEqual([]);
    // Another writer took the free slot meanwhile: the first, writing again, takes the next one.
    const next = new PartitionedLog<string>(store, { name: "gone", ttlMs: TTL, now, writerId: "w2" });
    await next.append("dm", "new");
    await stopped.append("dm", "back");
    expect(await store.atomic.marks(["gone:dm#0", "gone:dm#1"])).toEqual(["w2", "w1"]);
    expect((await stopped.read("dm")).map((items) => items.join(","))).toEqual(
      expect.arrayContaining(["new", "old,back"]),
    );
  });

  it("finds a live writer behind a whole batch of lapsed claims (a restart every day for weeks)", async () => {
    const { clock, store, now } = clockedStore();
    const writers = Array.from(
      { length: 9 },
      (_, n) => new PartitionedLog<string>(store, { name: "restarts", ttlMs: TTL, now, writerId: `w${n}` }),
    );
    for (const [n, writer] of writers.entries()) await writer.append("dm", `from w${n}`);
    expect(await store.atomic.marks(["restarts:dm#8"])).toEqual(["w8"]);
    // The first eight stopped; the ninth writes on while their claims lapse.
    for (let step = 1; step <= 15; step++) {
      clock.now = step * (TTL / 10);
      await writers[8]?.append("dm", `later ${step}`);
    }
    const reader = new PartitionedLog<string>(store, { name: "restarts", ttlMs: TTL, now });
    const partitions = await reader.read("dm");
    expect(partitions).toHaveLength(1);
    expect(partitions[0]).toHaveLength(16);
  });
});

describe("PartitionedLog appends that fail", () => {
  it("fails every append of a batch whose write failed, and the next append writes where that batch would have", async () => {
    const store = new MemoryStore();
    const items = store.namespace<string>("failing-items");
    const set = items.set.bind(items);
    let failing = false;
    items.set = ((...args: Parameters<typeof set>) =>
      failing ? Promise.reject(new Error("the store is down")) : set(...args)) as typeof items.set;
    const log = new PartitionedLog<string>(store, { name: "failing", ttlMs: TTL });
    const first = log.append("run", "kept");
    failing = true;
    const batch = [log.append("run", "lost 1"), log.append("run", "lost 2")];
    await first;
    const outcomes = await Promise.allSettled(batch);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(["rejected", "rejected"]);
    failing = false;
    await log.append("run", "after");
    expect(await flat(log, "run")).toEqual(["kept", "after"]);
    await store.close();
  });
});
