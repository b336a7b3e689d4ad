import { AIMessage, type BaseMessage, ToolMessage } from "@langchain/core/messages";

/** The plain text of a message, whatever shape its content has (string or content blocks). */
export function textOf(message: BaseMessage): string {
  const content: unknown = message.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((block: unknown) =>
      typeof block === "string"
        ? block
        : block && typeof block === "object" && "text" in block && typeof block.text === "string"
          ? block.text
          : "",
    )
    .join("");
}

/** About four characters per token: close enough to decide when to compact and to report sizes. */
export function estimateTokens(messages: readonly BaseMessage[]): number {
  let characters = 0;
  for (const message of messages) {
    characters += textOf(message).length;
    if (AIMessage.isInstance(message)) characters += JSON.stringify(message.tool_calls ?? []).length;
  }
  return Math.ceil(characters / 4);
}

/**
 * Every tool call answered by a tool result, as every provider requires. A turn cut short
 * (/stop, a limit, a crash) can leave calls unanswered; they get a result saying so.
 */
export function pairToolCalls(messages: readonly BaseMessage[]): BaseMessage[] {
  const answered = new Set(
    messages
      .filter((message) => ToolMessage.isInstance(message))
      .map((message) => (message as ToolMessage).tool_call_id),
  );
  const paired: BaseMessage[] = [];
  for (const message of messages) {
    paired.push(message);
    if (!AIMessage.isInstance(message)) continue;
    for (const call of message.tool_calls ?? []) {
      if (call.id && !answered.has(call.id)) {
        paired.push(
          new ToolMessage({
            tool_call_id: call.id,
            name: call.name,
            content: "Not run: the turn ended before this tool ran.",
          }),
        );
      }
    }
  }
  return paired;
}
