import type { ArchiveStore } from "./archive/archive-store.ts";
import type { MemoryAgent } from "./memory-agent.ts";
import type { MemoryBook } from "./memory-book.ts";

/** One line of what memory wrote about a conversation. */
export interface ThreadNote {
  /** When it happened (a session's end, an entry's time); undefined for messages not recorded yet. */
  readonly at?: number;
  readonly kind: "session" | "asked" | "answered";
  readonly text: string;
}

const SESSIONS_READ = 5;
const ENTRIES_READ = 20;
const NOTE_CHARS = 300;

/**
 * What memory wrote about a conversation, oldest first: the latest archived sessions' summaries,
 * then the summaries of the messages since (entries), then the live session's messages the
 * memory model has not summarized yet (at most `flushEvery` of them, shortened). Reads a bounded
 * number of keys — never the conversation's whole history. With `since`, only what came after it.
 */
export async function threadNotes(
  sources: { archive: ArchiveStore; book: MemoryBook; agent: MemoryAgent },
  key: string,
  since = 0,
): Promise<ThreadNote[]> {
  const [sessions, entries, pending] = await Promise.all([
    sources.archive.recent(key, SESSIONS_READ),
    sources.book.recentEntries(key, ENTRIES_READ),
    sources.agent.pendingLines(key),
  ]);
  const archivedUntil = Math.max(0, ...sessions.map((session) => session.endedAt));
  return [
    ...sessions
      .filter((session) => session.endedAt >= since)
      .reverse()
      .map((session) => ({ at: session.endedAt, kind: "session" as const, text: shorten(session.summary) })),
    ...entries
      .filter((entry) => entry.at > Math.max(archivedUntil, since - 1))
      .map((entry) => ({
        at: entry.at,
        kind: entry.role === "user" ? ("asked" as const) : ("answered" as const),
        text: shorten(entry.summary),
      })),
    ...pending.map((line) => ({
      kind: line.role === "user" ? ("asked" as const) : ("answered" as const),
      text: shorten(line.text),
    })),
  ];
}

function shorten(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= NOTE_CHARS ? flat : `${flat.slice(0, NOTE_CHARS - 1)}…`;
}
