import type { TranscriptLine } from "./archive/archive-store.ts";
import type { PromptLine } from "./session-store.ts";
import { formatLines } from "./transcript.ts";

/**
 * Messages before the turn shown when recording it: enough to resolve "it" and "that one"; the
 * rest of the session is in the entries and, after a flush, in the context document.
 */
export const ENTRY_CONTEXT_MESSAGES = 2;

// Every memory prompt is paid on every turn: the instructions say what is needed in as few words.
const ROLE = "You keep the memory of a chat between users and a bot; you never answer them.";

const ENTRY_RULES = [
  "- Call add_entry once. summary: the user's message in one or two sentences (facts, decisions, preferences, names, numbers, open questions; resolve references).",
  "- answer_summary: the same for the answer. tags: a few lowercase topic words.",
].join("\n");

const FLUSH_RULE = "- In the same reply, call put_context once with the new context document (rules below).";

const CONTEXT_RULES = [
  "- Call put_context once. Keep what is still true, add what was established, drop what was corrected.",
  "- Sections: people and preferences; facts and decisions; open tasks; the latest discussion. Plain text, ≤ 300 words.",
].join("\n");

function formatSession(lines: readonly PromptLine[], limit: number): string {
  const shown = lines.slice(-limit).map((line) => `${line.role}: ${line.text}`);
  return shown.length > 0 ? shown.join("\n") : "(nothing yet)";
}

/**
 * PROCESS_MESSAGE: record one turn (the user's message and the answer) in one call, seen in the
 * light of the few messages before it. PROCESS_MESSAGE_AND_FLUSH (`flush` given) asks in the same
 * call for the new context document: the current one plus the messages since it was written.
 */
export function addEntryPrompt(
  earlier: readonly PromptLine[],
  turn: readonly TranscriptLine[],
  flush?: { readonly currentContext: string | undefined; readonly sinceLastFlush: readonly PromptLine[] },
): string {
  return [
    ROLE,
    "",
    `Current operation: ADD_ENTRY${flush ? " + CONTEXT_SYNTHESIS" : ""}`,
    "",
    // A flush shows every message since the document was written, which holds the few before the turn.
    flush ? "Messages since the context document was written:" : "Just before this turn:",
    flush
      ? formatSession(flush.sinceLastFlush, Number.POSITIVE_INFINITY)
      : formatSession(earlier, ENTRY_CONTEXT_MESSAGES),
    "",
    "Turn to record:",
    formatLines(turn),
    "",
    "Rules:",
    ENTRY_RULES,
    ...(flush
      ? [
          FLUSH_RULE,
          "",
          "Current context document:",
          flush.currentContext?.trim() || "(none yet)",
          "",
          "Context document rules:",
          CONTEXT_RULES,
        ]
      : []),
  ].join("\n");
}

/**
 * END_SESSION (and a flush whose combined call left the document out): rewrite the context
 * document from the current one and the session's messages since it was written.
 */
export function putContextPrompt(session: readonly PromptLine[], currentContext: string | undefined): string {
  return [
    ROLE,
    "",
    "Current operation: CONTEXT_SYNTHESIS",
    "",
    "Current context document:",
    currentContext?.trim() || "(none yet)",
    "",
    "Messages since it was written:",
    formatSession(session, Number.POSITIVE_INFINITY),
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
