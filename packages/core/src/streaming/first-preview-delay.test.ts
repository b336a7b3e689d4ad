import { describe, expect, it } from "vitest";
import type { OutboundMessage, PostedMessage } from "../conversation/messages.ts";
import { type ReplySurface, StreamingReply } from "./streaming-reply.ts";

const conversation = { platform: "test", path: ["room"] };
const text = (delta: string) => ({ kind: "text", agent: "a", delta }) as const;
const complete = { kind: "complete", agent: "a" } as const;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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
  it("is never shown for an answer complete within the delay: close has nothing to replace, at once", async () => {
    const platform = countingSurface();
    const streaming = streamingWith(platform.surface, 100);
    streaming.accept(text("The whole answer."));
    streaming.accept(complete);
    await pause(150);
    const started = performance.now();
    expect(await streaming.close()).toEqual([]);
    // Not the stream's 1-second spacing: nothing was called, so nothing needs spacing.
    expect(performance.now() - started).toBeLessThan(50);
    expect(platform.calls).toEqual([]);
  });

  it("is not shown when the stream closes within the delay, and close does not wait for it", async () => {
    const platform = countingSurface();
    const streaming = streamingWith(platform.surface, 5_000);
    streaming.accept(text("Half an ans"));
    const started = performance.now();
    expect(await streaming.close()).toEqual([]);
    expect(performance.now() - started).toBeLessThan(50);
    expect(platform.calls).toEqual([]);
  });

  it("shows an answer still being written once the delay has passed", async () => {
    const platform = countingSurface();
    const streaming = streamingWith(platform.surface, 50);
    streaming.accept(text("Still "));
    await pause(20);
    expect(platform.calls).toEqual([]);
    streaming.accept(text("writing"));
    await pause(80);
    expect(platform.calls).toEqual(["post Still writing"]);
    streaming.accept(complete);
    expect((await streaming.close()).map((posted) => posted.id)).toEqual(["m1"]);
  });
});
