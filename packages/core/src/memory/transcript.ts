import { randomUUID } from "node:crypto";
import { AIMessage, type BaseMessage, ChatMessage, HumanMessage } from "@langchain/core/messages";
import { textOf } from "../team/history.ts";
import type { TranscriptLine } from "./archive/archive-store.ts";
import type { SpeakerRole } from "./memory-book.ts";

/** A user's or the bot's message as the memory graph keeps it; the id tells it apart from the session's others. */
export function speakerMessage(role: SpeakerRole, text: string): ChatMessage {
  return new ChatMessage({ role, content: text, id: randomUUID() });
}

export function roleOf(message: BaseMessage): SpeakerRole | "system" | undefined {
  if (ChatMessage.isInstance(message)) {
    const role = (message as ChatMessage).role;
    return role === "user" || role === "bot" || role === "system" ? role : undefined;
  }
  if (HumanMessage.isInstance(message)) return "user";
  if (AIMessage.isInstance(message)) return "bot";
  return undefined;
}

/**
 * The user's and the bot's words, in order: system context, tool calls and tool results left out.
 * Works on the memory graph's session and on the team's model history alike.
 */
export function transcriptOf(messages: readonly BaseMessage[]): TranscriptLine[] {
  const lines: TranscriptLine[] = [];
  for (const message of messages) {
    const role = roleOf(message);
    const text = textOf(message).trim();
    if ((role === "user" || role === "bot") && text !== "") lines.push({ role, text });
  }
  return lines;
}

/** The line a recorded speaker message becomes in the session's transcript. */
export function speakerLine(message: BaseMessage): TranscriptLine {
  return { role: roleOf(message) === "bot" ? "bot" : "user", text: textOf(message) };
}

/** Lines as an archived transcript keeps them: trimmed, empty ones left out (as `transcriptOf`). */
export function spokenLines(lines: readonly TranscriptLine[]): TranscriptLine[] {
  return lines
    .map((line) => ({ role: line.role, text: line.text.trim() }))
    .filter((line) => line.text !== "");
}

export { estimateTokens } from "../team/history.ts";

export function estimateTranscriptTokens(lines: readonly TranscriptLine[]): number {
  return Math.ceil(lines.reduce((total, line) => total + line.text.length + line.role.length + 2, 0) / 4);
}

export function formatLines(lines: readonly TranscriptLine[]): string {
  return lines.map((line) => `${line.role}: ${line.text}`).join("\n");
}
