import type { Adapter, InboundSink } from "../conversation/adapter.ts";
import type { InboundMessage, OutboundMessage, PostedMessage } from "../conversation/messages.ts";
import type { ConversationRef } from "../conversation/ref.ts";

let counter = 0;

/** An in-process platform for engine tests: `send` plays a user, `posts` is what the bot wrote. */
export class RecordingAdapter implements Adapter {
  readonly platform: string;
  readonly limits: { maxMessageLength: number };
  readonly posts: (OutboundMessage & { id: string })[] = [];
  readonly typing: { conversation: ConversationRef; active: boolean }[] = [];
  readonly commandPrefix: string | undefined;
  #sink: InboundSink | undefined;

  constructor(options: { platform?: string; maxMessageLength?: number; commandPrefix?: string } = {}) {
    this.platform = options.platform ?? "test";
    this.limits = { maxMessageLength: options.maxMessageLength ?? 2_000 };
    this.commandPrefix = options.commandPrefix;
  }

  async start(sink: InboundSink): Promise<void> {
    this.#sink = sink;
  }

  async stop(): Promise<void> {
    this.#sink = undefined;
  }

  async post(message: OutboundMessage): Promise<PostedMessage> {
    counter += 1;
    const id = `bot-${counter}`;
    this.posts.push({ ...message, id });
    return { id, conversation: message.conversation };
  }

  async setTyping(conversation: ConversationRef, active: boolean): Promise<void> {
    this.typing.push({ conversation, active });
  }

  /** Delivers a user's DM-like message (overrides allowed); returns it. */
  async send(text: string, overrides: Partial<InboundMessage> = {}): Promise<InboundMessage> {
    if (!this.#sink) throw new Error("RecordingAdapter is not started");
    counter += 1;
    const message: InboundMessage = {
      id: `user-${counter}`,
      conversation: { platform: this.platform, path: ["dm-1"] },
      author: { id: "user-1", displayName: "User One", isBot: false, isSelf: false },
      text,
      isDirect: true,
      mentionsBot: false,
      isEdit: false,
      sentAt: Date.now(),
      ...overrides,
    };
    await this.#sink(message);
    return message;
  }

  textsIn(conversation: ConversationRef): string[] {
    const key = conversation.path.join("\u0000");
    return this.posts
      .filter((post) => post.conversation.path.join("\u0000") === key)
      .map((post) => post.text);
  }
}
