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

      it("reads who holds each claim, in the order asked, while it is live", async () => {
        const [first, second, never] = [unique("held-a"), unique("held-b"), unique("held-none")];
        await store.setIfAbsent(first, "writer-1", TTL);
        await store.setIfAbsent(second, "writer-2", TTL * 3);
        await store.setIfAbsent(second, "writer-3", TTL);
        expect(await store.marks([second, never, first])).toEqual(["writer-2", undefined, "writer-1"]);
        expect(await store.marks([])).toEqual([]);
        await fixture.elapse(TTL + 100);
        expect(await store.marks([first, second])).toEqual([undefined, "writer-2"]);
      });

      it("renews a live claim for its holder only, and never one that expired", async () => {
        const [kept, lapsed] = [unique("renewed"), unique("lapsed")];
        await store.setIfAbsent(kept, "writer-1", TTL);
        await store.setIfAbsent(lapsed, "writer-1", TTL);
        expect(await store.renewMark(kept, "writer-2", TTL * 3)).toBe(false);
        expect(await store.renewMark(kept, "writer-1", TTL * 3)).toBe(true);
        await fixture.elapse(TTL + 100);
        expect(await store.marks([kept, lapsed])).toEqual(["writer-1", undefined]);
        expect(await store.renewMark(lapsed, "writer-1", TTL)).toBe(false);
        expect(await store.setIfAbsent(kept, "writer-2", TTL)).toBe(false);
        expect(await store.renewMark(unique("never"), "writer-1", TTL)).toBe(false);
        await expect(store.renewMark(kept, "writer-1", 0)).rejects.toThrow(RangeError);
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
      const add = (queue: string, item: string, order = 0) => store.enqueue(queue, { item, order });
      const items = (entries: readonly { item: string }[]) => entries.map((entry) => entry.item);
      const takeAll = async (queue: string) => {
        const taken: string[] = [];
        for (let entry = await store.peek(queue); entry; entry = await store.peek(queue)) {
          taken.push(entry.item);
          await store.ack(queue, entry.id);
        }
        return taken;
      };

      it("delivers in arrival order and re-delivers what was peeked but not acked", async () => {
        const queue = unique("fifo");
        for (const item of ["a", "b", "c"]) await add(queue, item);
        expect(await store.queueLength(queue)).toBe(3);
        const first = await store.peek(queue);
        expect(first?.item).toBe("a");
        expect((await store.peek(queue))?.item).toBe("a");
        expect(await store.ack(queue, first?.id ?? "")).toBe(2);
        expect(await takeAll(queue)).toEqual(["b", "c"]);
        expect(await store.peek(queue)).toBeNull();
        expect(await store.queueLength(queue)).toBe(0);
      });

      it("orders by the given order, whatever the arrival order, ties in arrival order", async () => {
        const queue = unique("ordered");
        await add(queue, "third", 300);
        await add(queue, "first", 100);
        await add(queue, "second-a", 200);
        await add(queue, "second-b", 200);
        await add(queue, "same item twice", 400);
        await add(queue, "same item twice", 400);
        expect(await takeAll(queue)).toEqual([
          "first",
          "second-a",
          "second-b",
          "third",
          "same item twice",
          "same item twice",
        ]);
      });

      it("acks the peeked entry even when an earlier one arrived meanwhile", async () => {
        const queue = unique("late");
        await add(queue, "running", 200);
        const running = await store.peek(queue);
        await add(queue, "sent earlier, arrived late", 100);
        await store.ack(queue, running?.id ?? "");
        expect(await takeAll(queue)).toEqual(["sent earlier, arrived late"]);
      });

      it("marks and queues in one step: a duplicate is neither queued nor re-marked", async () => {
        const queue = unique("intake");
        const dedupe = { key: unique("seen"), ttlMs: 60_000 };
        expect(await store.enqueue(queue, { item: "m1", order: 1, dedupe })).toBe(true);
        expect(await store.enqueue(queue, { item: "m1 again", order: 1, dedupe })).toBe(false);
        expect(await store.setIfAbsent(dedupe.key, "x", 60_000)).toBe(false);
        expect(await takeAll(queue)).toEqual(["m1"]);
      });

      it("lets exactly one of 50 concurrent deliveries of one message in", async () => {
        const queue = unique("redeliveries");
        const dedupe = { key: unique("seen"), ttlMs: 60_000 };
        const results = await Promise.all(
          Array.from({ length: 50 }, (_, i) => store.enqueue(queue, { item: `copy-${i}`, order: 1, dedupe })),
        );
        expect(results.filter(Boolean)).toHaveLength(1);
        expect(await store.queueLength(queue)).toBe(1);
      });

      it("takes a mark once", async () => {
        const key = unique("mark");
        expect(await store.takeMark(key)).toBe(false);
        await store.setIfAbsent(key, "1", 60_000);
        expect(await store.takeMark(key)).toBe(true);
        expect(await store.takeMark(key)).toBe(false);
        expect(await store.setIfAbsent(key, "1", 60_000)).toBe(true);
      });

      it("shows every entry in order, leaves them queued, and acks them one by one", async () => {
        const queue = unique("peek-all");
        for (const item of ["1", "2", "3", "4"]) await add(queue, item);
        const first = await store.peek(queue);
        await store.ack(queue, first?.id ?? "");
        const entries = await store.peekAll(queue);
        expect(items(entries)).toEqual(["2", "3", "4"]);
        // Still there: a crash before the acks re-delivers all three.
        expect(await store.queueLength(queue)).toBe(3);
        await add(queue, "5");
        for (const entry of entries) await store.ack(queue, entry.id);
        expect(items(await store.peekAll(queue))).toEqual(["5"]);
        await takeAll(queue);
        expect(await store.peekAll(queue)).toEqual([]);
      });

      it("keeps queues apart and treats ack of an unknown entry as nothing to do", async () => {
        const [left, right] = [unique("left"), unique("right")];
        await add(left, "L");
        expect(await store.ack(right, "no-such-entry")).toBe(0);
        expect(await store.peek(right)).toBeNull();
        expect(items(await store.peekAll(left))).toEqual(["L"]);
      });

      it("lists exactly the queues that hold items", async () => {
        const [acked, peeked, untouched] = [unique("q-acked"), unique("q-peeked"), unique("q-never")];
        await add(acked, "x");
        await add(peeked, "y");
        await add(peeked, "z");
        const listed = await store.nonEmptyQueues();
        expect(listed).toEqual(expect.arrayContaining([acked, peeked]));
        expect(listed).not.toContain(untouched);
        await takeAll(acked);
        await store.peekAll(peeked);
        const after = await store.nonEmptyQueues();
        expect(after).not.toContain(acked);
        expect(after).toContain(peeked);
      });

      it("keeps every item when 50 producers enqueue at once", async () => {
        const queue = unique("producers");
        const produced = Array.from({ length: 50 }, (_, i) => `item-${i}`);
        await Promise.all(produced.map((item) => add(queue, item)));
        expect(items(await store.peekAll(queue)).sort()).toEqual([...produced].sort());
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
        await store.enqueue(queue, { item: "job", order: 0 });
        expect((await store.peek(queue))?.item).toBe("job");
        // The first instance "crashes" here; the other one must still find the work.
        expect(await sibling().nonEmptyQueues()).toContain(queue);
        const seen = await sibling().peek(queue);
        expect(seen?.item).toBe("job");
        await sibling().ack(queue, seen?.id ?? "");
        expect(await store.queueLength(queue)).toBe(0);
      });
    });
  });
}
