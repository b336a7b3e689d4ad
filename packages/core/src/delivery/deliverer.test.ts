import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { ConversationIndex } from "../engine/conversation-index.ts";
import { MemoryStore } from "../store/memory/memory-store.ts";
import { RecordingAdapter } from "../testing/recording-adapter.ts";
import { Deliverer } from "./deliverer.ts";

const conversation = { platform: "test", path: ["dm-1"] };

function delivererWith(typingDelayMs: number, adapter = new RecordingAdapter()) {
  return {
    adapter,
    deliverer: new Deliverer([adapter], new ConversationIndex(new MemoryStore()), { typingDelayMs }),
  };
}

describe("Deliverer.whileTyping", () => {
  it("shows no indicator for work that finishes within the delay", async () => {
    const { adapter, deliverer } = delivererWith(200);
    expect(
      await deliverer.whileTyping(
        conversation,
        async () => "quick",
        () => {},
      ),
    ).toBe("quick");
    await sleep(250);
    expect(adapter.typing).toEqual([]);
  });

  it("shows the indicator once work outlasts the delay, and takes it back after", async () => {
    const { adapter, deliverer } = delivererWith(30);
    const work = deliverer.whileTyping(
      conversation,
      () => sleep(120).then(() => "slow"),
      () => {},
    );
    await sleep(80);
    expect(adapter.typing.map((entry) => entry.active)).toEqual([true]);
    expect(await work).toBe("slow");
    expect(adapter.typing.map((entry) => entry.active)).toEqual([true, false]);
  });

  it("with no delay, shows the indicator before the work starts", async () => {
    const { adapter, deliverer } = delivererWith(0);
    await deliverer.whileTyping(
      conversation,
      async () => expect(adapter.typing.map((entry) => entry.active)).toEqual([true]),
      () => {},
    );
    expect(adapter.typing.map((entry) => entry.active)).toEqual([true, false]);
  });

  it("takes the indicator back when the work fails, and passes the failure on", async () => {
    const { adapter, deliverer } = delivererWith(10);
    const failing = deliverer.whileTyping(
      conversation,
      () => sleep(60).then(() => Promise.reject(new Error("model down"))),
      () => {},
    );
    await expect(failing).rejects.toThrow("model down");
    expect(adapter.typing.map((entry) => entry.active)).toEqual([true, false]);
  });

  it("never fails the work because the indicator failed", async () => {
    class BrokenTyping extends RecordingAdapter {
      override async setTyping(): Promise<void> {
        throw new Error("rate limited");
      }
    }
    const errors: unknown[] = [];
    const { deliverer } = delivererWith(0, new BrokenTyping());
    expect(
      await deliverer.whileTyping(
        conversation,
        async () => "answer",
        (error) => errors.push(error),
      ),
    ).toBe("answer");
    expect(errors).toHaveLength(2);
  });
});
