import { AIMessage, type BaseMessage } from "@langchain/core/messages";

function textOf(message: BaseMessage): string {
  const content: unknown = message.content;
  if (typeof content === "string") return content;
  return Array.isArray(content)
    ? content.map((block: unknown) => (typeof block === "string" ? block : JSON.stringify(block))).join("")
    : "";
}

/**
 * Prompt tokens of one model call, estimated at four characters per token (the estimate memory
 * compaction uses): every message's text, system prompt included, plus tool calls as JSON.
 */
export function promptTokens(messages: readonly BaseMessage[]): number {
  let characters = 0;
  for (const message of messages) {
    characters += textOf(message).length;
    if (AIMessage.isInstance(message) && (message.tool_calls?.length ?? 0) > 0)
      characters += JSON.stringify(message.tool_calls).length;
  }
  return Math.ceil(characters / 4);
}
