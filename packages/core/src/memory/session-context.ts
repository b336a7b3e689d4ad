import type { ArchivedSessionSummary, ArchiveStore } from "./archive/archive-store.ts";
import type { ContextDocument, MemoryBook, MemoryEntry } from "./memory-book.ts";

export interface RememberedContext {
  readonly context?: ContextDocument | undefined;
  readonly entries: readonly MemoryEntry[];
  /** Newest first. */
  readonly summaries: readonly ArchivedSessionSummary[];
}

/**
 * The system context the team's agents get for a session: the context document, the latest
 * entries and the latest archived sessions' summaries. Empty when nothing is remembered.
 * Its size is bounded by configuration (entries, summaries), never by the conversation's length.
 *
 * Each fact is sent once: entries the context document (or an archived summary) already holds —
 * written before it — are left out, and so are summaries of sessions the document was rewritten
 * during or after (archiving rewrites it at the end of every session).
 */
export function composeSessionContext(remembered: RememberedContext): string {
  const parts: string[] = [];
  const document = remembered.context?.content.trim();
  const documentAt = document ? (remembered.context?.updatedAt ?? 0) : Number.NEGATIVE_INFINITY;
  const summaries = remembered.summaries.filter((session) => session.startedAt > documentAt);
  const archivedUntil = Math.max(0, ...remembered.summaries.map((session) => session.endedAt));
  const entries = remembered.entries.filter((entry) => entry.at > Math.max(documentAt, archivedUntil));
  if (document || entries.length > 0) {
    parts.push("## What you remember about this conversation");
    if (document) parts.push(document);
    if (entries.length > 0) {
      parts.push("Latest remembered messages (oldest first):");
      parts.push(entries.map((entry) => `- ${entry.role}: ${entry.summary}`).join("\n"));
    }
  }
  if (summaries.length > 0) {
    parts.push("## Earlier sessions (newest first; the search_memory tool finds details)");
    parts.push(summaries.map((session) => `- ${day(session.endedAt)}: ${session.summary}`).join("\n"));
  }
  return parts.join("\n\n");
}

export function withDigest(context: string, digest: string | null): string {
  if (!digest) return context;
  const section = `## Earlier in this session (condensed)\n${digest}`;
  return context ? `${context}\n\n${section}` : section;
}

/**
 * What a session starts with. An archived session is written only after the flush that records
 * its turns as entries (by the model or without it), so a conversation with neither entries nor a
 * context document remembers nothing, and its two small reads are all it costs: a new
 * conversation's first turn (most turns, on a busy workspace) never queries the archive.
 */
export async function loadRememberedContext(
  key: string,
  sources: { book: MemoryBook; archive: ArchiveStore; recentEntries: number; summariesInPrompt: number },
): Promise<RememberedContext> {
  const [count, context] = await Promise.all([sources.book.entryCount(key), sources.book.context(key)]);
  if (count === 0 && !context) return { entries: [], summaries: [] };
  const [entries, summaries] = await Promise.all([
    sources.recentEntries > 0 && count > 0
      ? sources.book.recentEntries(key, sources.recentEntries)
      : Promise.resolve([]),
    sources.summariesInPrompt > 0
      ? sources.archive.recent(key, sources.summariesInPrompt)
      : Promise.resolve([]),
  ]);
  return { context, entries, summaries };
}

function day(at: number): string {
  return new Date(at).toISOString().slice(0, 16).replace("T", " ");
}
