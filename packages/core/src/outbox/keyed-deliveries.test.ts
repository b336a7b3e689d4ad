/**
 * Keyed deliveries (interim messages) on the real stores: a key already delivered is never posted
 * again by a later attempt, whether that attempt asks for it again or skips it; an attempt that
 * skips it still finds its answer in the answer's place, and one that died mid-post finds the post.
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ConversationRef } from "../conversation/ref.ts";
import { Deliverer } from "../delivery/deliverer.ts";
import { ConversationIndex } from "../engine/conversation-index.ts";
import { silentLogger } from "../runtime/logger.ts";
import { openStore } from "../store/open-store.ts";
import {
  removeRedisKeys,
  TEST_REDIS_AVAILABLE,
  TEST_REDIS_URL,
  tempDirectory,
  uniqueRedisPrefix,
} from "../store/test-backends.ts";
import type { Store } from "../store/types.ts";
import { RecordingAdapter } from "../testing/recording-adapter.ts";
import { Outbox } from "./outbox.ts";

const thread: ConversationRef = { platform: "test", path: ["general", "thread-1"] };
const quickRetry = { attempts: 2, baseDelayMs: 1, maxDelayMs: 2 };

interface Backend {
  readonly name: string;
  readonly skip: boolean;
  open(): Promise<{ store: Store; remove(): Promise<void> }>;
}

const backends: Backend[] = [
  {
    name: "memory",
    skip: false,
    open: async () => ({ store: await openStore("memory://"), remove: async () => {} }),
  },
  {
    name: "sqlite",
    skip: false,
    open: async () => {
      const dir = await tempDirectory();
      const store = await openStore(`sqlite://${join(dir.path, "outbox.db")}`, { logger: silentLogger });
      return { store, remove: () => dir.remove() };
    },
  },
  {
    name: "redis",
    skip: !TEST_REDIS_AVAILABLE,
    open: async () => {
      const prefix = uniqueRedisPrefix("outbox-keys");
      const store = await openStore(`${TEST_REDIS_URL}/?prefix=${prefix}`, { logger: silentLogger });
      return { store, remove: async () => void (await removeRedisKeys(prefix)) };
    },
  },
];

/** A platform whose next post lands and never answers (the process dies before it hears back). */
class LandingAdapter extends RecordingAdapter {
  swallowNext = 0;
  /** The platform refuses this many look-ups for its rate limit, asking for no wait. */
  refuseLookups = 0;

  override async post(message: Parameters<RecordingAdapter["post"]>[0]) {
    const posted = await super.post(message);
    if (this.swallowNext > 0) {
      this.swallowNext -= 1;
      return new Promise<never>(() => {});
    }
    return posted;
  }

  async findPosted(_conversation: ConversationRef, key: string) {
    if (this.refuseLookups > 0) {
      this.refuseLookups -= 1;
      throw Object.assign(new Error("ratelimited"), { retryAfter: 0 });
    }
    const post = this.posts.find((candidate) => candidate.idempotencyKey === key);
    return post ? { id: post.id, conversation: post.conversation } : undefined;
  }
}

for (const backend of backends) {
  describe.skipIf(backend.skip)(`keyed deliveries on ${backend.name}`, () => {
    let opened: Awaited<ReturnType<Backend["open"]>> | undefined;
    afterEach(async () => {
      await opened?.store.close();
      await opened?.remove();
      opened = undefined;
    });

    async function outboxOn(adapter: RecordingAdapter) {
      opened ??= await backend.open();
      const deliverer = new Deliverer([adapter], new ConversationIndex(opened.store));
      return new Outbox({ store: opened.store, deliverer, logger: silentLogger, retry: quickRetry });
    }

    it("posts a key once: a re-run that skips it or asks for it again posts only the answer", async () => {
      const adapter = new RecordingAdapter();
      const outbox = await outboxOn(adapter);
      const first = await outbox.open("work-1");
      await first.deliver({ conversation: thread, text: "checking prices…" }, { key: "run-1:call-1" });
      expect(first.hasKey("run-1:call-1")).toBe(true);
      expect(first.keyedCount).toBe(1);
      // The process dies here, before the answer.

      // A re-run whose journal replays the tool call: the interim message is not asked for again.
      const skipping = await outbox.open("work-1");
      expect(skipping.answered).toBe(false);
      expect(skipping.keyedCount).toBe(1);
      await skipping.deliver({ conversation: thread, text: "the answer" }, { answer: true });
      // A third attempt that asks for both again posts neither.
      const repeating = await outbox.open("work-1");
      await repeating.deliver({ conversation: thread, text: "checking prices…" }, { key: "run-1:call-1" });
      await repeating.deliver({ conversation: thread, text: "the answer" }, { answer: true });
      expect(adapter.posts.map((post) => post.text)).toEqual(["checking prices…", "the answer"]);
      expect((await outbox.open("work-1")).answered).toBe(true);
    });

    it("keeps unkeyed deliveries in their places around keyed ones", async () => {
      const adapter = new RecordingAdapter();
      const outbox = await outboxOn(adapter);
      const first = await outbox.open("work-2");
      await first.deliver({ conversation: thread, text: "command reply" });
      await first.deliver({ conversation: thread, text: "one" }, { key: "k1" });
      await first.deliver({ conversation: thread, text: "two" }, { key: "k2" });
      const again = await outbox.open("work-2");
      await again.deliver({ conversation: thread, text: "command reply" });
      await again.deliver({ conversation: thread, text: "two" }, { key: "k2" });
      await again.deliver({ conversation: thread, text: "answer" }, { answer: true });
      expect(adapter.posts.map((post) => post.text)).toEqual(["command reply", "one", "two", "answer"]);
    });

    it("finds an interim post that landed before the process died, instead of posting it again", async () => {
      const adapter = new LandingAdapter();
      adapter.swallowNext = 1;
      const outbox = await outboxOn(adapter);
      const dying = await outbox.open("work-3");
      void dying.deliver({ conversation: thread, text: "found three options" }, { key: "run-3:call-1" });
      await waitUntil(() => adapter.posts.length === 1);
      // The retry of the work asks for the same key (the tool call was started, not recorded done).
      const retry = await outbox.open("work-3");
      await retry.deliver({ conversation: thread, text: "found three options" }, { key: "run-3:call-1" });
      await retry.deliver({ conversation: thread, text: "the answer" }, { answer: true });
      expect(adapter.posts.map((post) => post.text)).toEqual(["found three options", "the answer"]);
    });

    it("looks again for a landed post when the platform refused the look-up for its rate limit", async () => {
      const adapter = new LandingAdapter();
      adapter.swallowNext = 1;
      const outbox = await outboxOn(adapter);
      const dying = await outbox.open("work-5");
      void dying.deliver({ conversation: thread, text: "the answer" }, { answer: true });
      await waitUntil(() => adapter.posts.length === 1);
      adapter.refuseLookups = 1;
      const retry = await outbox.open("work-5");
      const outcome = await retry.deliver({ conversation: thread, text: "the answer" }, { answer: true });
      expect(outcome).toEqual({ delivered: true });
      expect(adapter.posts.map((post) => post.text)).toEqual(["the answer"]);
    });

    it("knows a post that landed while its work was being cancelled (abandoned, so never recorded)", async () => {
      const adapter = new LandingAdapter();
      adapter.swallowNext = 1;
      const outbox = await outboxOn(adapter);
      const cancel = new AbortController();
      const cancelled = await outbox.open("work-4", cancel.signal);
      const delivering = cancelled.deliver(
        { conversation: thread, text: "trying again in 60 s" },
        { answer: true },
      );
      await waitUntil(() => adapter.posts.length === 1);
      cancel.abort(new Error("stopped by user"));
      await expect(delivering).rejects.toThrow("stopped by user");
      const after = await outbox.open("work-4");
      expect(after.recordedDeliveries()[0]?.posted).toEqual([]);
      expect(await after.landed(0)).toEqual([{ id: adapter.posts[0]?.id, conversation: thread }]);
    });
  });
}

async function waitUntil(condition: () => boolean): Promise<void> {
  for (let round = 0; round < 200 && !condition(); round++) await new Promise((r) => setImmediate(r));
  if (!condition()) throw new Error("the condition never held");
}
