import type { Adapter } from "../conversation/adapter.ts";
import type { PostedMessage } from "../conversation/messages.ts";
import { type ConversationRef, encodeConversationKey } from "../conversation/ref.ts";
import type { ConversationIndex } from "../engine/conversation-index.ts";
import { chunkMarkdown } from "./chunk.ts";

export interface Delivery {
  readonly conversation: ConversationRef;
  /** Markdown; split into as many platform messages as the adapter's limit needs. */
  readonly text: string;
  /** The origin message this answers. */
  readonly replyTo?: string;
  readonly recipientId?: string;
  readonly agent?: string;
}

export class UnknownPlatformError extends Error {
  constructor(platform: string) {
    super(`no adapter is running for platform "${platform}"`);
    this.name = "UnknownPlatformError";
  }
}

/**
 * The one way anything reaches a thread: the engine's answers, command replies, late answers of
 * follow-up runs. Every posted message is indexed so replies to it find their conversation.
 */
export class Deliverer {
  readonly #adapters: ReadonlyMap<string, Adapter>;
  readonly #index: ConversationIndex;

  constructor(adapters: Iterable<Adapter>, index: ConversationIndex) {
    this.#adapters = new Map([...adapters].map((adapter) => [adapter.platform, adapter]));
    this.#index = index;
  }

  adapterFor(conversation: ConversationRef): Adapter {
    const adapter = this.#adapters.get(conversation.platform);
    if (!adapter) throw new UnknownPlatformError(conversation.platform);
    return adapter;
  }

  async deliver(delivery: Delivery): Promise<PostedMessage[]> {
    const adapter = this.adapterFor(delivery.conversation);
    const key = encodeConversationKey(delivery.conversation);
    const posted: PostedMessage[] = [];
    for (const text of chunkMarkdown(delivery.text, adapter.limits.maxMessageLength)) {
      const message = await adapter.post({
        conversation: delivery.conversation,
        text,
        ...(delivery.replyTo === undefined ? {} : { replyTo: delivery.replyTo }),
        ...(delivery.recipientId === undefined ? {} : { recipientId: delivery.recipientId }),
        ...(delivery.agent === undefined ? {} : { agent: delivery.agent }),
      });
      posted.push(message);
      await this.#index.rememberPosted(
        adapter.platform,
        message.id,
        encodeConversationKey(message.conversation),
      );
      // From the first chunk on, the bot takes part: a follow-up typed while later chunks are
      // still being posted must not be judged unaddressed.
      if (posted.length === 1) await this.#index.markParticipating(key);
    }
    return posted;
  }

  /** Shows the working indicator while `work` runs; indicator failures never fail the work. */
  async whileTyping<T>(conversation: ConversationRef, work: () => Promise<T>, onError: (e: unknown) => void) {
    const adapter = this.adapterFor(conversation);
    await adapter.setTyping?.(conversation, true).catch(onError);
    try {
      return await work();
    } finally {
      await adapter.setTyping?.(conversation, false).catch(onError);
    }
  }
}
