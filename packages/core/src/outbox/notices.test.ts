import { describe, expect, it } from "vitest";
import type { OutboundMessage, PostedMessage } from "../conversation/messages.ts";
import { Deliverer } from "../delivery/deliverer.ts";
import { ConversationIndex } from "../engine/conversation-index.ts";
import { silentLogger } from "../runtime/logger.ts";
import { testStoreBackends } from "../store/test-backends.ts";
import type { Store } from "../store/types.ts";
import { RecordingAdapter } from "../testing/recording-adapter.ts";
import { Notices } from "./notices.ts";
import { Outbox } from "./outbox.ts";

const conversation = { platform: "test", path: ["general", "root-1"] };
const notice = { conversation, text: "I stopped waiting (timed out).", replyTo: "root-1" };

/** A platform that refuses posts while `refusing` is set. */
class FlakyAdapter extends RecordingAdapter {
  refusing = false;
  override async post(message: OutboundMessage): Promise<PostedMessage> {
    if (this.refusing) throw Object.assign(new Error("platform down"), { retryAfterMs: 0 });
    return super.post(message);
  }
}

/** One process's notices over the shared store (a restart is a second one). */
function processOn(store: Store, adapter: RecordingAdapter) {
  const deliverer = new Deliverer([adapter], new ConversationIndex(store));
  const outbox = new Outbox({
    store,
    deliverer,
    logger: silentLogger,
    retry: { attempts: 2, baseDelayMs: 0, maxDelayMs: 0 },
  });
  return { notices: new Notices({ store, outbox, logger: silentLogger, lockTtlMs: 30_000 }), outbox };
}

describe.each(testStoreBackends("notices"))("Notices on %s", (_name, open) => {
  it("a crash after the notice is recorded and before the change it announces loses neither", async () => {
    const { store, cleanup } = await open();
    try {
      const adapter = new RecordingAdapter();
      const first = processOn(store, adapter);
      // The "crash": the status change never happens, and nothing is posted.
      const crash = new Error("killed");
      await expect(
        first.notices.send("request:r1:timed-out", notice, () => Promise.reject(crash)),
      ).rejects.toBe(crash);
      expect(adapter.posts).toHaveLength(0);
      expect(await first.notices.pendingCount()).toBe(1);

      // The next process's recovery posts it; the sweep, finding the request still due, changes
      // the status and finds its notice already posted.
      const restarted = processOn(store, adapter);
      expect(await restarted.notices.deliverPending()).toBe(1);
      let changed = 0;
      await restarted.notices.send("request:r1:timed-out", notice, async () => {
        changed += 1;
      });
      expect(changed).toBe(1);
      expect(adapter.textsIn(conversation)).toEqual([notice.text]);
      expect(adapter.posts[0]?.replyTo).toBe("root-1");
      expect(await restarted.notices.pendingCount()).toBe(0);
    } finally {
      await store.close();
      await cleanup();
    }
  });

  it("a notice another process is posting is left to it; the change it announces still happens here", async () => {
    const { store, cleanup } = await open();
    try {
      const adapter = new RecordingAdapter();
      const one = processOn(store, adapter);
      const two = processOn(store, adapter);
      let resolveChange!: () => void;
      const changing = new Promise<void>((resolve) => {
        resolveChange = resolve;
      });
      let changedTwo = false;
      const sending = one.notices.send("stop:test:m1", notice, () => changing);
      // While one holds the notice (between recording and posting), neither recovery nor a second
      // sender posts it.
      await expect.poll(() => one.notices.pendingCount()).toBe(1);
      expect(await two.notices.deliverPending()).toBe(0);
      await two.notices.send("stop:test:m1", notice, async () => {
        changedTwo = true;
      });
      expect(changedTwo).toBe(true);
      expect(adapter.posts).toHaveLength(0);
      resolveChange();
      await sending;
      expect(adapter.textsIn(conversation)).toEqual([notice.text]);
    } finally {
      await store.close();
      await cleanup();
    }
  });

  it("a notice the platform keeps refusing is given up after its retries and shown in /status", async () => {
    const { store, cleanup } = await open();
    try {
      const adapter = new FlakyAdapter();
      adapter.refusing = true;
      const { notices, outbox } = processOn(store, adapter);
      await notices.send("request:r2:still-working", notice);
      expect(adapter.posts).toHaveLength(0);
      expect(await notices.pendingCount()).toBe(0);
      expect((await outbox.givenUp("test:general:root-1")).map((entry) => entry.reason)).toEqual([
        "platform down",
      ]);
    } finally {
      await store.close();
      await cleanup();
    }
  });
});
