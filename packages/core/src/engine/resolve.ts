import type { InboundMessage } from "../conversation/messages.ts";
import { type ConversationRef, decodeConversationKey, encodeConversationKey } from "../conversation/ref.ts";
import type { ConversationIndex } from "./conversation-index.ts";

export interface ResolvedConversation {
  readonly key: string;
  readonly conversation: ConversationRef;
  readonly repliesToBot: boolean;
}

/**
 * The conversation a message belongs to: the adapter's place, except that a reply to a bot message
 * continues the conversation that bot message was posted in (even when the reply sits outside it).
 */
export async function resolveConversation(
  message: InboundMessage,
  index: ConversationIndex,
): Promise<ResolvedConversation> {
  const platform = message.conversation.platform;
  const repliedKey =
    message.replyTo === undefined
      ? undefined
      : await index.conversationOfBotMessage(platform, message.replyTo);
  if (repliedKey !== undefined) {
    return { key: repliedKey, conversation: decodeConversationKey(repliedKey), repliesToBot: true };
  }
  return {
    key: encodeConversationKey(message.conversation),
    conversation: message.conversation,
    repliesToBot: false,
  };
}
