import type { BaseMessage } from "@langchain/core/messages";

/**
 * The team's live model history, as memory needs it: read it, and replace it (compaction keeps
 * the recent turns; archiving clears it). `Team` implements it; the active agent is left alone.
 */
export interface ConversationHistory {
  conversationState(key: string): Promise<{ readonly messages: BaseMessage[] } | undefined>;
  replaceHistory(key: string, messages: readonly BaseMessage[]): Promise<void>;
}
