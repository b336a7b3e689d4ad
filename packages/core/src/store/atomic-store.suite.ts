import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AtomicStore } from "./types.ts";

/** One backend under test, opened fresh for every test. */
export interface AtomicStoreFixture {
  readonly store: AtomicStore;
  /** A second instance over the same data, as another process would open it (absent for memory). */
  readonly sibling?: AtomicStore;
  /** Lets `ms` pass as the store sees time: a fake clock moved forward, or real waiting on Redis. */
  elapse(ms: number): Promise<void>;
  close(): Promise<void>;
}

/** Short enough for real-time Redis tests, long enough that a slow CI machine does not outlive it. */
const TTL = 150;

/**
 * The behaviour every AtomicStore must show. Keys are unique per test, so backends that share
 * state between tests (one Redis prefix per run) still give every test a clean slate.
 */
export function defineAtomicStoreSuite(
  backend: string,
  openFixture: () => Promise<AtomicStoreFixture>,
  options: { readonly hasSiblings: boolean },
): void {
  describe(`AtomicStore contract: ${backend}`, () => {
    let fixture: AtomicStoreFixture;
    let store: AtomicStore;
    const unique = (label: string) => `${label}-${randomUUID()}`;

    beforeEach(async () => {
      fixture = await openFixture();
      store = fixture.store;
    });
    afterEach(async () => {
      await fixture.close();
    });

    describe("setIfAbsent", () => {
      it("stores once, refuses while present, and stores again after the TTL", async () => {
        const key = unique("once");
        expect(await store.setIfAbsent(key, "first", TTL)).toBe(true);
        expect(await store.setIfAbsent(key, "second", TTL)).toBe(false);
        await fixture.elapse(TTL + 100);
        expect(await store.setIfAbsent(key, "third", TTL)).toBe(true);
        expect(await store.setIfAbsent(key, "fourth", TTL)).toBe(false);
      });

      it("keeps different keys apart", async () => {
        expect(await store.setIfAbsent(unique("a"), "1", TTL)).toBe(true);
        expect(await store.setIfAbsent(unique("b"), "1", TTL)).toBe(true);
      });

      it("lets exactly one of 50 concurrent callers win", async () => {
        const key = unique("race");
        const results = await Promise.all(
          Array.from({ length: 50 }, (_, i) => store.setIfAbsent(key, `${i}`, 10_000)),
        );
        expect(results.filter(Boolean)).toHaveLength(1);
      });

      it.each([0, -5, 1.5, Number.NaN])("rejects a TTL of %s ms", async (ttl) => {
        await expect(store.setIfAbsent(unique("bad-ttl"), "x", ttl)).rejects.toThrow(RangeError);
      });
    });

    describe("locks", () => {
      it("is exclusive until released, then free again", async () => {
        const key = unique("lock");
        const token = await store.acquireLock(key, 10_000);
        expect(token).toEqual(expect.any(String));
        expect(await store.acquireLock(key, 10_000)).toBeNull();
        expect(await store.releaseLock(key, token!)).toBe(true);
        const next = await store.acquireLock(key, 10_000);
        expect(next).toEqual(expect.any(String));
        expect(next).not.toBe(token);
      });

      it("stays held past its first TTL when extended", async () => {
        const key = unique("extend");
        const token = (await store.acquireLock(key, TTL))!;
        await fixture.elapse(TTL / 2);
        expect(await store.extendLock(key, token, TTL * 3)).toBe(true);
        await fixture.elapse(TTL);
        // Now past the original expiry: only the extension keeps it.
        expect(await store.acquireLock(key, TTL)).toBeNull();
        expect(await store.extendLock(key, token, TTL)).toBe(true);
        expect(await store.releaseLock(key, token)).toBe(true);
      });

      it("lets another caller take a crashed holder's lock once it expires", async () => {
        const key = unique("crash");
        const crashed = (await store.acquireLock(key, TTL))!;
        expect(await store.acquireLock(key, TTL)).toBeNull();
        await fixture.elapse(TTL + 100);
        const successor = await store.acquireLock(key, 10_000);
        expect(successor).toEqual(expect.any(String));
        expect(successor).not.toBe(crashed);
        // The old holder wakes up: it must not be able to touch the successor's lock.
        expect(await store.extendLock(key, crashed, 10_000)).toBe(false);
        expect(await store.releaseLock(key, crashed)).toBe(false);
        expect(await store.acquireLock(key, 10_000)).toBeNull();
        expect(await store.releaseLock(key, successor!)).toBe(true);
      });

      it("refuses to extend or release with a stale or foreign token", async () => {
        const key = unique("stale");
        const first = (await store.acquireLock(key, 10_000))!;
        expect(await store.releaseLock(key, first)).toBe(true);
        expect(await store.releaseLock(key, first)).toBe(false);
        expect(await store.extendLock(key, first, 10_000)).toBe(false);
        const second = (await store.acquireLock(key, 10_000))!;
        expect(await store.extendLock(key, first, 10_000)).toBe(false);
        expect(await store.releaseLock(key, first)).toBe(false);
        expect(await store.releaseLock(key, randomUUID())).toBe(false);
        expect(await store.acquireLock(key, 10_000)).toBeNull();
        expect(await store.releaseLock(key, second)).toBe(true);
      });

      it("cannot be extended after it expired, even if nobody took it", async () => {
        const key = unique("lapsed");
        const token = (await store.acquireLock(key, TTL))!;
        await fixture.elapse(TTL + 100);
        expect(await store.extendLock(key, token, 10_000)).toBe(false);
        expect(await store.releaseLock(key, token)).toBe(false);
      });

      it("hands exactly one token to 50 concurrent callers", async () => {
        const key = unique("contended");
        const tokens = await Promise.all(Array.from({ length: 50 }, () => store.acquireLock(key, 10_000)));
        expect(tokens.filter((token) => token !== null)).toHaveLength(1);
      });
    });

    describe("queues", () => {
      it("delivers in FIFO order and re-delivers what was peeked but not acked", async () => {
        const queue = unique("fifo");
        for (const item of ["a", "b", "c"]) await store.enqueue(queue, item);
        expect(await store.queueLength(queue)).toBe(3);
        expect(await store.peek(queue)).toBe("a");
        expect(await store.peek(queue)).toBe("a");
        await store.ack(queue);
        expect(await store.peek(queue)).toBe("b");
        await store.ack(queue);
        expect(await store.peek(queue)).toBe("c");
        await store.ack(queue);
        expect(await store.peek(queue)).toBeNull();
        expect(await store.queueLength(queue)).toBe(0);
      });

      it("drains everything oldest first and leaves the queue empty", async () => {
        const queue = unique("drain");
        for (const item of ["1", "2", "3", "4"]) await store.enqueue(queue, item);
        await store.ack(queue);
        expect(await store.drain(queue)).toEqual(["2", "3", "4"]);
        expect(await store.queueLength(queue)).toBe(0);
        expect(await store.drain(queue)).toEqual([]);
      });

      it("keeps queues apart and treats ack on an empty queue as nothing to do", async () => {
        const [left, right] = [unique("left"), unique("right")];
        await store.enqueue(left, "L");
        await store.ack(right);
        expect(await store.peek(right)).toBeNull();
        expect(await store.drain(left)).toEqual(["L"]);
      });

      it("lists exactly the queues that hold items", async () => {
        const [acked, drained, untouched] = [unique("q-acked"), unique("q-drained"), unique("q-never")];
        await store.enqueue(acked, "x");
        await store.enqueue(drained, "y");
        await store.enqueue(drained, "z");
        const listed = await store.nonEmptyQueues();
        expect(listed).toEqual(expect.arrayContaining([acked, drained]));
        expect(listed).not.toContain(untouched);
        await store.ack(acked);
        await store.drain(drained);
        const after = await store.nonEmptyQueues();
        expect(after).not.toContain(acked);
        expect(after).not.toContain(drained);
      });

      it("keeps every item when 50 producers enqueue at once", async () => {
        const queue = unique("producers");
        const items = Array.from({ length: 50 }, (_, i) => `item-${i}`);
        await Promise.all(items.map((item) => store.enqueue(queue, item)));
        expect((await store.drain(queue)).sort()).toEqual([...items].sort());
      });
    });

    describe.runIf(options.hasSiblings)("two instances over the same data", () => {
      const sibling = (): AtomicStore => {
        if (!fixture.sibling) throw new Error(`${backend} has no second instance`);
        return fixture.sibling;
      };

      it("see each other's locks and dedupe keys", async () => {
        const key = unique("shared");
        const token = (await store.acquireLock(key, 10_000))!;
        expect(await sibling().acquireLock(key, 10_000)).toBeNull();
        expect(await sibling().releaseLock(key, token)).toBe(true);
        expect(await sibling().acquireLock(key, 10_000)).toEqual(expect.any(String));
        expect(await store.setIfAbsent(key, "x", 10_000)).toBe(true);
        expect(await sibling().setIfAbsent(key, "x", 10_000)).toBe(false);
      });

      it("hand one token to 50 callers split across both", async () => {
        const key = unique("split");
        const attempts = Array.from({ length: 50 }, (_, i) =>
          (i % 2 === 0 ? store : sibling()).acquireLock(key, 10_000),
        );
        expect((await Promise.all(attempts)).filter((token) => token !== null)).toHaveLength(1);
      });

      it("re-deliver an item one instance peeked and never acked", async () => {
        const queue = unique("crash-safe");
        await store.enqueue(queue, "job");
        expect(await store.peek(queue)).toBe("job");
        // The first instance "crashes" here; the other one must still find the work.
        expect(await sibling().nonEmptyQueues()).toContain(queue);
        expect(await sibling().peek(queue)).toBe("job");
        await sibling().ack(queue);
        expect(await store.queueLength(queue)).toBe(0);
      });
    });
  });
}
