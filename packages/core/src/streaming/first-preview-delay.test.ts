import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { OutboundMessage, PostedMessage } from "../conversation/messages.ts";
import { type ReplySurface, StreamingReply } from "./streaming-reply.ts";

const conversation = { platform: "test", path: ["room"] };
const text = (delta: string) => ({ kind: "text", agent: "a", delta }) as const;
const complete = { kind: "complete", agent: "a" } as const;

/**
 * `promise`'s value, which must come without any time passing (the clock is fake and does not move
 * here): a close that waited for the stream's spacing would never settle.
 */
async function withoutTimePassing<T>(promise: Promise<T>): Promise<T> {
  let outcome: { value: T } | undefined;
  let failure: { error: unknown } | undefined;
  promise.then(
    (value) => {
      outcome = { value };
    },
    (error: unknown) => {
      failure = { error };
    },
  );
  for (let tick = 0; tick < 100 && !outcome && !failure; tick++) await Promise.resolve();
  if (failure) throw failure.error;
  if (!outcome) throw new Error("it waited for time to pass");
  return outcome.value;
}

function countingSurface() {
  const calls: string[] = [];
  const surface: ReplySurface = {
    async post(message: OutboundMessage): Promise<PostedMessage> {
      calls.push(`post ${message.text}`);
      return { id: `m${calls.length}`, conversation: message.conversation };
    },
    async edit(_posted, edited) {
      calls.push(`edit ${edited}`);
    },
  };
  return { surface, calls };
}

function streamingWith(surface: ReplySurface, firstPreviewDelayMs: number) {
  return new StreamingReply({
    surface,
    target: { conversation, replyTo: "question" },
    maxMessageLength: 2_000,
    intervalMs: 1_000,
    progress: true,
    firstPreviewDelayMs,
    onPosted: async () => {},
    onPreviewError: (error) => {
      throw error;
    },
  });
}

describe("the first preview of a streamed answer", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("is never shown for an answer complete within the delay: close has nothing to replace, at once", async () => {
    const platform = countingSurface();
    const streaming = streamingWith(platform.surface, 100);
    streaming.accept(text("The whole answer."));
    streaming.accept(complete);
    await vi.advanceTimersByTimeAsync(150);
    // Not the stream's 1-second spacing: nothing was called, so nothing needs spacing.
    expect(await withoutTimePassing(streaming.close())).toEqual([]);
    expect(platform.calls).toEqual([]);
  });

  it("is not shown when the stream closes within the delay, and close does not wait for it", async () => {
    const platform = countingSurface();
    const streaming = streamingWith(platform.surface, 5_000);
    streaming.accept(text("Half an ans"));
    expect(await withoutTimePassing(streaming.close())).toEqual([]);
    expect(platform.calls).toEqual([]);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(platform.calls).toEqual([]);
  });

  it("shows an answer still being written once the delay has passed", async () => {
    const platform = countingSurface();
    const streaming = streamingWith(platform.surface, 50);
    streaming.accept(text("Still "));
    await vi.advanceTimersByTimeAsync(49);
    expect(platform.calls).toEqual([]);
    streaming.accept(text("writing"));
    await vi.advanceTimersByTimeAsync(1);
    expect(platform.calls).toEqual(["post Still writing"]);
    streaming.accept(complete);
    const closing = streaming.close();
    await vi.advanceTimersByTimeAsync(1_000);
    expect((await closing).map((posted) => posted.id)).toEqual(["m1"]);
  });
});
