import { describe, expect, it, vi } from "vitest";
import type { PostedMessage } from "../conversation/messages.ts";
import { ConversationIndex } from "../engine/conversation-index.ts";
import { MemoryStore } from "../store/memory/memory-store.ts";
import { StreamRecords } from "../streaming/stream-records.ts";
import { RecordingAdapter } from "../testing/recording-adapter.ts";
import { Deliverer } from "./deliverer.ts";

const conversation = { platform: "test", path: ["thread-1"] };

/** A platform that shows answers as they are written (post, then edit). */
class StreamingAdapter extends RecordingAdapter {
  readonly streaming = { editIntervalMs: 0, progress: false };
  async edit(_posted: PostedMessage, _text: string): Promise<void> {}
}

/** As on Slack: a reply sits in its thread and never names the message it answers. */
class ThreadedRepliesAdapter extends RecordingAdapter {
  readonly repliesNameTheirTarget = false;
}

function setUp(adapter: RecordingAdapter) {
  const store = new MemoryStore();
  const index = new ConversationIndex(store);
  const streams = new StreamRecords(store);
  const deliverer = new Deliverer([adapter], index, { streams, firstPreviewDelayMs: 0 });
  const streamDeletes = vi.spyOn(store.namespace("streams"), "delete");
  const postedWrites = vi.spyOn(store.namespace("posted"), "set");
  return { index, streams, deliverer, streamDeletes, postedWrites };
}

describe("what a delivery writes to the store", () => {
  it("indexes each bot message where a reply can name it, so the reply finds its conversation", async () => {
    const { index, deliverer } = setUp(new RecordingAdapter());
    const posted = await deliverer.post({ conversation, text: "hello" });
    expect(await index.conversationOfBotMessage("test", posted.id)).toBe("test:thread-1");
  });

  it("writes no index entry where replies never name the message they answer", async () => {
    const { index, deliverer, postedWrites } = setUp(new ThreadedRepliesAdapter());
    const posted = await deliverer.post({ conversation, text: "hello" });
    expect(postedWrites).not.toHaveBeenCalled();
    expect(await index.conversationOfBotMessage("test", posted.id)).toBeUndefined();
  });

  it("an answer that was never shown while written deletes no stream record", async () => {
    const { deliverer, streamDeletes } = setUp(new StreamingAdapter());
    const reply = await deliverer.openStream({ conversation }, "work-1", () => {});
    expect(await reply?.close()).toEqual([]);
    await reply?.forget();
    expect(streamDeletes).not.toHaveBeenCalled();
  });

  it("an answer shown while written clears its stream record once delivered", async () => {
    const adapter = new StreamingAdapter();
    const { deliverer, streams, streamDeletes } = setUp(adapter);
    const reply = await deliverer.openStream({ conversation }, "work-1", () => {});
    reply?.accept({ kind: "text", agent: "supervisor", delta: "hello" });
    await vi.waitFor(async () => expect(await streams.load("work-1")).toHaveLength(1));
    const shown = (await reply?.close()) ?? [];
    expect(shown).toHaveLength(1);
    expect(await streams.load("work-1")).toEqual(shown);
    await reply?.forget();
    expect(streamDeletes).toHaveBeenCalledTimes(1);
    expect(await streams.load("work-1")).toEqual([]);
  });

  it("a stream record left by an earlier attempt is cleared, even when this attempt showed nothing", async () => {
    const { deliverer, streams } = setUp(new StreamingAdapter());
    await streams.save("work-1", [{ id: "bot-earlier", conversation }]);
    const reply = await deliverer.openStream({ conversation }, "work-1", () => {});
    expect((await reply?.close())?.map((posted) => posted.id)).toEqual(["bot-earlier"]);
    await reply?.forget();
    expect(await streams.load("work-1")).toEqual([]);
  });
});
