import type { TranscriptLine } from "./archive/archive-store.ts";
import { formatLines } from "./transcript.ts";

// Every memory prompt is paid again and again: the instructions say what is needed in as few words.
const ROLE = "You keep the memory of a chat between users and a bot; you never answer them.";

const ENTRY_RULES =
  "- Call add_entry once, with one item per turn above (its number): summary = the user's message, answer_summary = the answer, each in one sentence (facts, decisions, preferences, names, numbers, open questions; resolve references); tags = a few lowercase topic words.";

const CONTEXT_RULES = [
  "- Call put_context once with the new context document: keep what is still true, add what was established, drop what was corrected.",
  "- Sections: people and preferences; facts and decisions; open tasks; the latest discussion. Plain text, ≤ 300 words.",
].join("\n");

/**
 * Turns as the model sees them, numbered from 1: a turn starts at a user's message (a bot line
 * before any user line is a turn of its own), so each item of `add_entry` names one turn.
 */
export function turnsOf(lines: readonly TranscriptLine[]): TranscriptLine[][] {
  const turns: TranscriptLine[][] = [];
  for (const line of lines) {
    const current = turns.at(-1);
    if (current && !(line.role === "user" && current.length > 0)) current.push(line);
    else turns.push([line]);
  }
  return turns;
}

function formatTurns(turns: readonly (readonly TranscriptLine[])[]): string {
  return turns.map((turn, index) => `Turn ${index + 1}:\n${formatLines(turn)}`).join("\n");
}

/**
 * PROCESS_MESSAGE_AND_FLUSH and END_SESSION: one call records every turn since the last flush
 * (each message reaches the model once, here) and rewrites the context document from the current
 * one and those turns. Nothing else of the session is sent: the document already holds it.
 */
export function recordTurnsPrompt(
  turns: readonly (readonly TranscriptLine[])[],
  currentContext: string | undefined,
): string {
  return [
    ROLE,
    "",
    "Current operation: ADD_ENTRY + CONTEXT_SYNTHESIS",
    "",
    "Current context document:",
    currentContext?.trim() || "(none yet)",
    "",
    "Turns since it was written:",
    formatTurns(turns),
    "",
    "Rules:",
    ENTRY_RULES,
    CONTEXT_RULES,
  ].join("\n");
}

/** The second call of a flush whose first left the document out: the document alone. */
export function putContextPrompt(
  turns: readonly (readonly TranscriptLine[])[],
  currentContext: string | undefined,
): string {
  return [
    ROLE,
    "",
    "Current operation: CONTEXT_SYNTHESIS",
    "",
    "Current context document:",
    currentContext?.trim() || "(none yet)",
    "",
    "Turns since it was written:",
    formatTurns(turns),
    "",
    "Rules:",
    CONTEXT_RULES,
  ].join("\n");
}

/** Archive and compaction summaries. */
export function summaryPrompt(lines: readonly TranscriptLine[], earlierDigest?: string): string {
  return [
    "Summarize this part of a chat between users and a bot in two or three sentences:",
    "what was asked, what was answered or decided, and anything left open. Plain text only.",
    ...(earlierDigest ? ["", "Summary of what came before it:", earlierDigest] : []),
    "",
    "Conversation:",
    formatLines(lines),
  ].join("\n");
}
