import type { TranscriptLine } from "./archive/archive-store.ts";
import type { PromptLine } from "./session-store.ts";
import { formatLines } from "./transcript.ts";

/** Messages of the session shown when recording one message; older ones are in the context document. */
export const ENTRY_CONTEXT_MESSAGES = 30;
/** Messages of the session shown when rewriting the context document. */
export const SYNTHESIS_MESSAGES = 80;

const ROLE =
  "You keep the memory of a chat between users and a bot. You observe the conversation and store, " +
  "retrieve and maintain accurate memories of it. You never answer the users yourself.";

const ENTRY_RULES = [
  "- Record exactly this one message with the add_entry tool, once.",
  "- summary: one or two sentences with the facts, decisions, preferences, names, numbers and open questions in the message; resolve references using the earlier messages.",
  "- raw_entry: the message text, unchanged.",
  "- tags: a few short lowercase topic words.",
].join("\n");

const CONTEXT_RULES = [
  "- Call the put_context tool once with the new document.",
  "- Keep what is still true from the current document; add what this conversation established; drop what was corrected or is no longer relevant.",
  "- Sections: who is involved and their preferences; facts and decisions; open tasks and questions; the thread of the latest discussion.",
  "- Plain text, at most about 300 words.",
].join("\n");

function formatSession(lines: readonly PromptLine[], limit: number): string {
  const shown = lines.slice(-limit).map((line) => `${line.role}: ${line.text}`);
  return shown.length > 0 ? shown.join("\n") : "(nothing yet)";
}

/**
 * PROCESS_MESSAGE: record one message, seen in the light of the session so far.
 * `earlier`: the remembered context and the session's messages before this one (the last
 * ENTRY_CONTEXT_MESSAGES are shown).
 */
export function addEntryPrompt(earlier: readonly PromptLine[], toProcess: TranscriptLine): string {
  return [
    ROLE,
    "",
    "Current operation: ADD_ENTRY",
    "",
    "Earlier in this conversation (including context remembered from before):",
    formatSession(earlier, ENTRY_CONTEXT_MESSAGES),
    "",
    "Message to record:",
    `${toProcess.role}: ${toProcess.text}`,
    "",
    "Rules:",
    ENTRY_RULES,
  ].join("\n");
}

/**
 * PROCESS_MESSAGE_AND_FLUSH and END_SESSION: rewrite the context document for the whole session.
 * `session`: the remembered context and the session's messages (the last SYNTHESIS_MESSAGES are shown).
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
    "This conversation so far:",
    formatSession(session, SYNTHESIS_MESSAGES),
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
