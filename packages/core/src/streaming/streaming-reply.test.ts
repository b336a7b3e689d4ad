import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { NativeTextStream } from "../conversation/adapter.ts";
import type { OutboundMessage, PostedMessage } from "../conversation/messages.ts";
import { type ReplySurface, StreamingReply, type StreamingReplyOptions } from "./streaming-reply.ts";

const conversation = { platform: "test", path: ["room"] };

interface Call {
  readonly kind: "post" | "edit" | "append" | "stop" | "progress";
  readonly id?: string;
  readonly text?: string;
  readonly at: number;
}

/** A platform that keeps each message's text and when every call came. */
function recordingSurface(options: { native?: boolean; failPosts?: number } = {}) {
  const calls: Call[] = [];
  const messages = new Map<string, string>();
  let next = 0;
  let failPosts = options.failPosts ?? 0;
  const surface: ReplySurface = {
    async post(message: OutboundMessage): Promise<PostedMessage> {
      if (failPosts-- > 0) throw new Error("rate limited");
      const id = `m${++next}`;
      messages.set(id, message.text);
      calls.push({ kind: "post", id, text: message.text, at: Date.now() });
      return { id, conversation: message.conversation };
    },
    async edit(posted, text) {
      if (!messages.has(posted.id)) throw new Error(`no message ${posted.id}`);
      messages.set(posted.id, text);
      calls.push({ kind: "edit", id: posted.id, text, at: Date.now() });
    },
  };
  if (options.native) {
    surface.openStream = (message): NativeTextStream => {
      let id: string | undefined;
      return {
        async append(markdown) {
          id ??= `m${++next}`;
          messages.set(id, (messages.get(id) ?? "") + markdown);
          calls.push({ kind: "append", id, text: markdown, at: Date.now() });
          return { id, conversation: message.conversation };
        },
        async stop() {
          if (!id) throw new Error("never started");
          calls.push({ kind: "stop", id, at: Date.now() });
          return { id, conversation: message.conversation };
        },
      };
    };
  }
  return { surface, calls, messages, texts: () => [...messages.values()] };
}

function reply(surface: ReplySurface, overrides: Partial<StreamingReplyOptions> = {}) {
  const recorded: PostedMessage[][] = [];
  const errors: unknown[] = [];
  const streaming = new StreamingReply({
    surface,
    target: { conversation, replyTo: "question" },
    maxMessageLength: 2_000,
    intervalMs: 40,
    progress: true,
    onPosted: async (_posted, all) => {
      recorded.push([...all]);
    },
    onPreviewError: (error) => errors.push(error),
    ...overrides,
  });
  return { streaming, recorded, errors };
}

const text = (delta: string) => ({ kind: "text", agent: "a", delta }) as const;
/** The clock is fake: time passes only here, so a loaded machine cannot make an edit late. */
const pause = (ms: number) => vi.advanceTimersByTimeAsync(ms);

/** `promise`, with the fake clock moved on until it settles (a close or finish keeps the spacing). */
async function settle<T>(promise: Promise<T>): Promise<T> {
  let settled = false;
  const tracked = promise.finally(() => {
    settled = true;
  });
  for (let step = 0; !settled && step < 10_000; step++) await vi.advanceTimersByTimeAsync(1);
  return tracked;
}

describe("StreamingReply", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("posts the first words at once, edits as the text grows, and ends with exactly the answer", async () => {
    const platform = recordingSurface();
    const { streaming } = reply(platform.surface);
    const words = "one two three four five six seven eight".split(" ").map((word) => `${word} `);
    for (const word of words) {
      streaming.accept(text(word));
      await pause(10);
    }
    const answer = words.join("").trim();
    await settle(streaming.finish(answer));

    expect(platform.calls[0]).toMatchObject({ kind: "post", text: "one" });
    expect(platform.calls.slice(1).every((call) => call.kind === "edit" && call.id === "m1")).toBe(true);
    // Fewer calls than words: edits are batched to the interval.
    expect(platform.calls.length).toBeLessThan(words.length);
    expect(platform.texts()).toEqual([answer]);
  });

  it("never calls the platform twice within the interval", async () => {
    const platform = recordingSurface();
    const { streaming } = reply(platform.surface, { intervalMs: 50 });
    for (let index = 0; index < 30; index++) {
      streaming.accept(text(`w${index} `));
      await pause(5);
    }
    await settle(streaming.finish("final answer"));
    const gaps = platform.calls.slice(1).map((call, index) => call.at - (platform.calls[index]?.at ?? 0));
    expect(gaps.every((gap) => gap >= 49)).toBe(true);
    expect(platform.texts()).toEqual(["final answer"]);
  });

  it("continues in a new message when the text outgrows one, each within the limit", async () => {
    const platform = recordingSurface();
    const { streaming, recorded } = reply(platform.surface, { maxMessageLength: 100, intervalMs: 5 });
    const sentence = "This sentence is about forty chars long. ";
    let answer = "";
    for (let index = 0; index < 8; index++) {
      answer += sentence;
      streaming.accept(text(sentence));
      await pause(15);
    }
    const posted = (await settle(streaming.finish(answer.trim()))) ?? [];
    expect(posted.length).toBeGreaterThanOrEqual(3);
    expect(platform.texts().every((body) => body.length <= 100)).toBe(true);
    expect(platform.texts().join(" ").replace(/\s+/g, " ")).toBe(answer.trim());
    // Every new message is recorded with all before it, in order.
    expect(recorded.at(-1)?.map((message) => message.id)).toEqual(posted.map((message) => message.id));
  });

  it("shows progress as an italic line, and takes back the text of a step that called a tool", async () => {
    const platform = recordingSurface();
    const { streaming } = reply(platform.surface, { intervalMs: 5 });
    streaming.accept(text("Let me check"));
    await pause(20);
    streaming.accept({ kind: "discard", agent: "a" });
    streaming.accept({ kind: "progress", agent: "a", status: "billing is checking your invoice…" });
    await pause(20);
    expect(platform.texts()).toEqual(["_billing is checking your invoice…_"]);
    streaming.accept(text("Your invoice is paid."));
    await pause(20);
    expect(platform.texts()).toEqual(["Your invoice is paid."]);
    await settle(streaming.finish("Your invoice is paid."));
    expect(platform.calls.filter((call) => call.kind === "post")).toHaveLength(1);
  });

  it("leaves progress out when it is switched off, and hands it to the platform's own indicator when it has one", async () => {
    const off = recordingSurface();
    const quiet = reply(off.surface, { progress: false, intervalMs: 5 }).streaming;
    quiet.accept({ kind: "progress", agent: "a", status: "a is busy…" });
    await pause(20);
    expect(off.calls).toEqual([]);

    const native = recordingSurface();
    const statuses: string[] = [];
    native.surface.showProgress = async (_conversation, status) => {
      statuses.push(status);
      return true;
    };
    const withIndicator = reply(native.surface, { intervalMs: 5 }).streaming;
    withIndicator.accept({ kind: "progress", agent: "a", status: "a is busy…" });
    // Nothing was shown in the thread: the caller delivers the answer the ordinary way.
    expect(await settle(withIndicator.finish("done"))).toBeUndefined();
    expect(statuses).toEqual(["a is busy…"]);
    expect(native.texts()).toEqual([]);
  });

  it("continues in the messages an earlier attempt posted (after a crash) instead of posting again", async () => {
    const platform = recordingSurface();
    const first = reply(platform.surface, { intervalMs: 5 });
    first.streaming.accept(text("The answer is"));
    await pause(20);
    await settle(first.streaming.abandon());
    const resumed = first.recorded.at(-1) ?? [];
    expect(platform.texts()).toEqual(["The answer is"]);

    const second = reply(platform.surface, { intervalMs: 5, resumed });
    second.streaming.accept(text("The answer is 42."));
    await settle(second.streaming.finish("The answer is 42."));
    expect(platform.texts()).toEqual(["The answer is 42."]);
    expect(platform.calls.filter((call) => call.kind === "post")).toHaveLength(1);
  });

  it("uses the platform's append stream while the text only grows, then makes it exactly the answer", async () => {
    const platform = recordingSurface({ native: true });
    const { streaming } = reply(platform.surface, { intervalMs: 5 });
    for (const word of ["Hello ", "from ", "a ", "stream"]) {
      streaming.accept(text(word));
      await pause(12);
    }
    await settle(streaming.finish("Hello from a stream"));
    const kinds = platform.calls.map((call) => call.kind);
    expect(kinds[0]).toBe("append");
    expect(kinds.slice(-2)).toEqual(["stop", "edit"]);
    expect(platform.texts()).toEqual(["Hello from a stream"]);
  });

  it("reports a failed preview and still ends with the complete answer", async () => {
    const platform = recordingSurface({ failPosts: 1 });
    const { streaming, errors } = reply(platform.surface, { intervalMs: 5 });
    streaming.accept(text("partial"));
    await pause(20);
    streaming.accept(text(" and more"));
    await pause(20);
    await settle(streaming.finish("complete answer"));
    expect(errors).toHaveLength(1);
    expect(platform.texts()).toEqual(["complete answer"]);
  });

  it("hands the answer back when nothing was shown, so it is delivered the ordinary way", async () => {
    const platform = recordingSurface({ failPosts: 1 });
    const { streaming, errors } = reply(platform.surface, { intervalMs: 5 });
    streaming.accept(text("partial"));
    await pause(20);
    expect(await settle(streaming.finish("complete answer"))).toBeUndefined();
    expect(errors).toHaveLength(1);
    expect(platform.texts()).toEqual([]);
  });
});
