import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AtomicStoreFixture } from "./atomic-store.suite.ts";
import type { AtomicStore } from "./types.ts";

/**
 * The combined steps a conversation's drain takes (lock + first peek, last ack + release): each
 * must behave exactly as its two parts would, and the release must never free a lock that holds
 * work or belongs to someone else.
 */
export function defineLockedQueueSuite(
  backend: string,
  openFixture: () => Promise<AtomicStoreFixture>,
): void {
  describe(`AtomicStore combined lock and queue steps: ${backend}`, () => {
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

    it("takes the lock and reads the first item in order, leaving it queued", async () => {
      const [lock, queue] = [unique("lock"), unique("queue")];
      await store.enqueue(queue, { item: "later", order: 200 });
      await store.enqueue(queue, { item: "first", order: 100 });
      const locked = await store.acquireLockAndPeek(lock, queue, 10_000);
      expect(locked?.head?.item).toBe("first");
      expect(await store.acquireLock(lock, 10_000)).toBeNull();
      expect(await store.queueLength(queue)).toBe(2);
      expect((await store.peek(queue))?.id).toBe(locked?.head?.id);
      expect(await store.releaseLock(lock, locked?.token ?? "")).toBe(true);
    });

    it("takes the lock of an empty queue with no item, and reads nothing when the lock is held", async () => {
      const [lock, queue] = [unique("lock"), unique("queue")];
      const locked = await store.acquireLockAndPeek(lock, queue, 10_000);
      expect(locked).toEqual({ token: expect.any(String), head: null });
      await store.enqueue(queue, { item: "waiting", order: 0 });
      expect(await store.acquireLockAndPeek(lock, queue, 10_000)).toBeNull();
    });

    it("hands exactly one lock to 50 concurrent callers", async () => {
      const [lock, queue] = [unique("lock"), unique("queue")];
      await store.enqueue(queue, { item: "job", order: 0 });
      const claims = await Promise.all(
        Array.from({ length: 50 }, () => store.acquireLockAndPeek(lock, queue, 10_000)),
      );
      expect(claims.filter((claim) => claim !== null)).toHaveLength(1);
    });

    it("releases the lock with the last ack, and only then", async () => {
      const [lock, queue] = [unique("lock"), unique("queue")];
      await store.enqueue(queue, { item: "a", order: 0 });
      await store.enqueue(queue, { item: "b", order: 0 });
      const locked = (await store.acquireLockAndPeek(lock, queue, 10_000))!;
      expect(await store.ackAndReleaseIfEmpty(queue, locked.head?.id ?? "", lock, locked.token)).toBe(1);
      // Work is left: the lock is still ours.
      expect(await store.acquireLock(lock, 10_000)).toBeNull();
      expect(await store.extendLock(lock, locked.token, 10_000)).toBe(true);
      const second = (await store.peek(queue))!;
      expect(second.item).toBe("b");
      expect(await store.ackAndReleaseIfEmpty(queue, second.id, lock, locked.token)).toBe(0);
      expect(await store.nonEmptyQueues()).not.toContain(queue);
      const next = await store.acquireLock(lock, 10_000);
      expect(next).toEqual(expect.any(String));
      expect(next).not.toBe(locked.token);
    });

    it("never frees a lock someone else took after the holder's expired", async () => {
      const [lock, queue] = [unique("lock"), unique("queue")];
      await store.enqueue(queue, { item: "job", order: 0 });
      const stale = (await store.acquireLockAndPeek(lock, queue, 150))!;
      await fixture.elapse(250);
      const successor = await store.acquireLock(lock, 10_000);
      expect(successor).toEqual(expect.any(String));
      expect(await store.ackAndReleaseIfEmpty(queue, stale.head?.id ?? "", lock, stale.token)).toBe(0);
      expect(await store.acquireLock(lock, 10_000)).toBeNull();
      expect(await store.releaseLock(lock, successor ?? "")).toBe(true);
    });
  });
}
