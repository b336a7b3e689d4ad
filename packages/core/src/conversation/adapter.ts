import type { InboundMessage, OutboundMessage, PostedMessage } from "./messages.ts";
import type { ConversationRef } from "./ref.ts";

export interface AdapterLimits {
  /** Longest markdown text one posted message may carry; the engine chunks to this. */
  readonly maxMessageLength: number;
}

/** Where an adapter hands every inbound message; resolves when the engine has accepted it. */
export type InboundSink = (message: InboundMessage) => Promise<void>;

/**
 * A platform connection. It maps platform places to conversations and back, and nothing else:
 * no gating, dedupe, routing or chunking decisions live here.
 */
export interface Adapter {
  /** The platform prefix of every conversation key this adapter owns. */
  readonly platform: string;
  readonly limits: AdapterLimits;
  /**
   * Verifies credentials and reachability without starting (used by `switchboard doctor`).
   * Throws an error whose message tells the operator what to fix.
   */
  check?(): Promise<void>;
  start(sink: InboundSink): Promise<void>;
  stop(): Promise<void>;
  /** Post one chunk into the conversation's thread, as a reply to `replyTo` when given. */
  post(message: OutboundMessage): Promise<PostedMessage>;
  edit?(posted: PostedMessage, text: string): Promise<void>;
  /** Show (or stop showing) that the bot is working in this conversation. */
  setTyping?(conversation: ConversationRef, active: boolean): Promise<void>;
}
