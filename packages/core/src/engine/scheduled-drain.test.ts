/**
 * Scale-out seam: with a scheduler, the engine that accepts a message only announces the
 * conversation; another engine on the same store drains it when asked, in order, under the lock.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openStore } from "../store/index.ts";
import type { Store } from "../store/types.ts";
import { RecordingAdapter } from "../testing/recording-adapter.ts";
import { scriptedResponder } from "../testing/responders.ts";
import { Engine } from "./engine.ts";
import type { DrainScheduler } from "./serializer.ts";

class RecordingScheduler implements DrainScheduler {
  readonly scheduled: string[] = [];
  failNext = false;
  async schedule(key: string): Promise<void> {
    if (this.failNext) {
      this.failNext = false;
      throw new Error("job queue unreachable");
    }
    this.scheduled.push(key);
  }
}

describe("scheduled drains (scale-out)", () => {
  let store: Store;
  const engines: Engine[] = [];
  beforeEach(async () => {
    store = await openStore("memory://");
  });
  afterEach(async () => {
    for (const engine of engines.splice(0)) await engine.stop();
    await store.close();
  });

  const pair = async () => {
    const scheduler = new RecordingScheduler();
    const inbound = new RecordingAdapter();
    const outbound = new RecordingAdapter();
    const ingressResponder = scriptedResponder(() => "never asked");
    const workerResponder = scriptedResponder((turn) => `answer to ${turn.text}`);
    const ingress = new Engine({ store, adapters: [inbound], responder: ingressResponder, scheduler });
    const worker = new Engine({ store, adapters: [outbound], responder: workerResponder, scheduler });
    engines.push(ingress, worker);
    await ingress.start();
    await worker.start();
    return { scheduler, inbound, outbound, ingress, worker, ingressResponder, workerResponder };
  };

  it("announces accepted work instead of running it, and the worker drains it in order", async () => {
    const { scheduler, inbound, outbound, ingress, worker, ingressResponder } = await pair();
    const first = await inbound.send("one");
    await inbound.send("two");
    await ingress.idle();
    expect(ingressResponder.turns).toHaveLength(0);
    expect(outbound.posts).toHaveLength(0);
    const key = scheduler.scheduled[0];
    expect(key).toBeDefined();
    expect(scheduler.scheduled).toEqual([key, key]);

    expect(await worker.drainScheduled(key!)).toBe("drained");
    expect(outbound.posts.map((post) => post.text)).toEqual(["answer to one", "answer to two"]);
    expect(outbound.posts[0]?.replyTo).toBe(first.id);
    // Nothing left: a second drain finds an empty queue.
    expect(await worker.drainScheduled(key!)).toBe("drained");
    expect(outbound.posts).toHaveLength(2);
  });

  it("does not wait for a conversation locked by another holder", async () => {
    const { scheduler, inbound, worker } = await pair();
    await inbound.send("question");
    const key = scheduler.scheduled[0]!;
    const token = await store.atomic.acquireLock(`lock:${key}`, 60_000);
    expect(token).toBeTruthy();
    expect(await worker.drainScheduled(key)).toBe("locked-elsewhere");
    await store.atomic.releaseLock(`lock:${key}`, token!);
    expect(await worker.drainScheduled(key)).toBe("drained");
  });

  it("keeps work whose announcement failed, and the recovery round announces it again", async () => {
    const { scheduler, inbound, worker, outbound } = await pair();
    scheduler.failNext = true;
    await inbound.send("lost announcement");
    expect(scheduler.scheduled).toEqual([]);
    const report = await worker.runRecoveryRound();
    expect(report.queuedConversations).toBe(1);
    const [key] = scheduler.scheduled;
    expect(key).toBeDefined();
    await worker.drainScheduled(key!);
    expect(outbound.posts.map((post) => post.text)).toEqual(["answer to lost announcement"]);
  });
});
