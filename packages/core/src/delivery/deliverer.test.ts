import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
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

/** Work that ends when the test says so (the clock is fake; only the test moves it). */
function heldWork<T>() {
  let finish: (outcome: { value: T } | { error: Error }) => void = () => {};
  const done = new Promise<T>((resolve, reject) => {
    finish = (outcome) => ("error" in outcome ? reject(outcome.error) : resolve(outcome.value));
  });
  return { run: () => done, finish };
}

describe("Deliverer.whileTyping", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("shows no indicator for work that finishes within the delay", async () => {
    const { adapter, deliverer } = delivererWith(200);
    expect(
      await deliverer.whileTyping(
        conversation,
        async () => "quick",
        () => {},
      ),
    ).toBe("quick");
    await vi.advanceTimersByTimeAsync(250);
    expect(adapter.typing).toEqual([]);
  });

  it("shows the indicator once work outlasts the delay, and takes it back after", async () => {
    const { adapter, deliverer } = delivererWith(30);
    const slow = heldWork<string>();
    const work = deliverer.whileTyping(conversation, slow.run, () => {});
    await vi.advanceTimersByTimeAsync(29);
    expect(adapter.typing).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(adapter.typing.map((entry) => entry.active)).toEqual([true]);
    slow.finish({ value: "slow" });
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
    const model = heldWork<never>();
    const failing = deliverer.whileTyping(conversation, model.run, () => {});
    await vi.advanceTimersByTimeAsync(10);
    model.finish({ error: new Error("model down") });
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
