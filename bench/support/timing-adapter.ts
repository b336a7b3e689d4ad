import type { ConversationRef, InboundMessage, OutboundMessage, PostedMessage } from "@switchboard/core";
import type { Adapter, InboundSink } from "@switchboard/core/adapter";

/**
 * An in-process platform that keeps nothing per message (100,000 conversations must not grow it):
 * `ask` plays a user and resolves at the moment the engine posts the answer, with the time it
 * took from handing the message to the engine.
 */
export class TimingAdapter implements Adapter {
  readonly platform = "bench";
  // Answers in the benchmarks are short: one answer is one post, so the first post is the last.
  readonly limits = { maxMessageLength: 100_000 };
  posts = 0;
  #sink: InboundSink | undefined;
  #sequence = 0;
  readonly #waiting = new Map<string, { started: number; resolve: (ms: number) => void }>();

  async start(sink: InboundSink): Promise<void> {
    this.#sink = sink;
  }

  async stop(): Promise<void> {
    this.#sink = undefined;
  }

  async post(message: OutboundMessage): Promise<PostedMessage> {
    const now = performance.now();
    this.posts += 1;
    this.#sequence += 1;
    const waiter = message.replyTo === undefined ? undefined : this.#waiting.get(message.replyTo);
    if (waiter && message.replyTo !== undefined) {
      this.#waiting.delete(message.replyTo);
      waiter.resolve(now - waiter.started);
    }
    return { id: `b${this.#sequence}`, conversation: message.conversation };
  }

  /** Sends `text` as a direct message in conversation `place`; resolves with accept → post milliseconds. */
  async ask(place: string, text: string): Promise<number> {
    const sink = this.#sink;
    if (!sink) throw new Error("the timing adapter is not started");
    this.#sequence += 1;
    const message: InboundMessage = {
      id: `u${this.#sequence}`,
      conversation: conversationOf(place),
      author: { id: "bench-user", isBot: false, isSelf: false },
      text,
      isDirect: true,
      mentionsBot: false,
      isEdit: false,
      sentAt: Date.now(),
    };
    const answered = new Promise<number>((resolve) => {
      this.#waiting.set(message.id, { started: performance.now(), resolve });
    });
    await sink(message);
    return answered;
  }

  /** Messages sent but not answered yet (a turn that failed or posted nothing). */
  get unanswered(): number {
    return this.#waiting.size;
  }
}

export function conversationOf(place: string): ConversationRef {
  return { platform: "bench", path: [place] };
}
