import { afterEach, describe, expect, it, vi } from "vitest";
import { type Permit, PermitQueue } from "./permit-queue.ts";

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe("PermitQueue", () => {
  afterEach(() => vi.useRealTimers());

  it("hands out permits up to the limit, then first come first served; the first lane goes ahead", async () => {
    const queue = new PermitQueue({ limit: 2 });
    const held = [await queue.acquire(), await queue.acquire()];
    const order: string[] = [];
    const served = (name: string) => (permit: Permit) => {
      order.push(name);
      return permit;
    };
    const later = ["a", "b"].map((name) => queue.acquire().then(served(name)));
    const first = queue.acquire({ lane: "first" }).then(served("resume"));
    expect(queue.waiting).toBe(3);
    held[0]?.release();
    held[0]?.release();
    await flush();
    expect(order).toEqual(["resume"]);
    held[1]?.release();
    await flush();
    expect(order).toEqual(["resume", "a"]);
    expect(queue.inUse).toBe(2);
    (await first).release();
    await flush();
    expect(order).toEqual(["resume", "a", "b"]);
    for (const permit of await Promise.all(later)) permit.release();
    expect(queue.inUse).toBe(0);
  });

  it("lets a waiter whose caller gave up leave the line", async () => {
    const queue = new PermitQueue({ limit: 1 });
    const held = await queue.acquire();
    const gaveUp = new AbortController();
    const abandoned = queue.acquire({ signal: gaveUp.signal });
    const next = queue.acquire();
    gaveUp.abort(new Error("turn cancelled"));
    await expect(abandoned).rejects.toThrow("turn cancelled");
    held.release();
    const permit: Permit = await next;
    expect(queue.inUse).toBe(1);
    permit.release();
  });

  it("raises and lowers its limit while in use", async () => {
    const queue = new PermitQueue({ limit: 1 });
    const one = await queue.acquire();
    const two = queue.acquire();
    queue.limit = 2;
    const second = await two;
    queue.limit = 1;
    one.release();
    const third = queue.acquire();
    await flush();
    expect(queue.waiting).toBe(1);
    second.release();
    (await third).release();
  });

  it("holds the head of the line while a rule of time says so, and looks again when it ends", async () => {
    vi.useFakeTimers();
    let pausedUntil = Date.now() + 2_000;
    const queue = new PermitQueue<number>({
      limit: 5,
      holdHead: () => Math.max(0, pausedUntil - Date.now()),
    });
    let admitted = false;
    const waiting = queue.acquire({ cost: 1 }).then((permit) => {
      admitted = true;
      return permit;
    });
    await vi.advanceTimersByTimeAsync(1_999);
    expect(admitted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    (await waiting).release();
    expect(admitted).toBe(true);
    pausedUntil = 0;
  });
});
