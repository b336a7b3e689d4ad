import type { ArchiveStore } from "../memory/archive/archive-store.ts";
import type { MemoryBook } from "../memory/memory-book.ts";
import type { RunStepsReader } from "../steps/run-steps-log.ts";

/** One conversation of a place, as a digest reads it. */
export interface DigestConversation {
  readonly key: string;
  /** Runs answering people in it during the period. */
  readonly turns: number;
  readonly lastActiveAt: number;
  /** Summaries memory wrote of it: archived sessions' and single messages', oldest first. */
  readonly notes: readonly string[];
}

/** Where a digest's material comes from; each is optional (a process without memory or steps has less). */
export interface DigestSources {
  /** The run-steps log: which conversations of the place had runs in the period. */
  readonly runs?: Pick<RunStepsReader, "runsBetween">;
  /** Memory's archived sessions (their summaries). */
  readonly archive?: Pick<ArchiveStore, "recent">;
  /** Memory's per-message summaries (sessions not archived yet). */
  readonly book?: Pick<MemoryBook, "recentEntries">;
}

/** Runs read from the log per digest: the period's newest, more than a place's digest needs. */
const RUNS_READ = 5_000;
const CONVERSATIONS_KEPT = 40;
const SESSIONS_READ = 5;
const ENTRIES_READ = 30;
const NOTE_CHARS = 400;

/**
 * The material of a digest: the conversations in a place (a conversation-key prefix) that had runs
 * in the period, busiest first, each with what memory wrote about it — archived sessions'
 * summaries and message summaries of the period. Reads the log's index of the period and a few
 * keys per conversation, never the conversations' whole history.
 */
export async function digestMaterial(
  sources: DigestSources,
  place: string,
  since: number,
  until: number,
): Promise<DigestConversation[] | undefined> {
  if (!sources.runs) return undefined;
  const runs = await sources.runs.runsBetween(since, until, { limit: RUNS_READ });
  const byKey = new Map<string, { turns: number; lastActiveAt: number }>();
  for (const run of runs) {
    // Scheduled runs (digests, reminders) are the bot talking to itself: not what people discussed.
    if (!inPlace(run.conversationKey, place) || run.trigger === "schedule") continue;
    const seen = byKey.get(run.conversationKey) ?? { turns: 0, lastActiveAt: 0 };
    byKey.set(run.conversationKey, {
      turns: seen.turns + (run.trigger === "user_message" ? 1 : 0),
      lastActiveAt: Math.max(seen.lastActiveAt, run.endedAt ?? run.startedAt),
    });
  }
  const busiest = [...byKey]
    .sort(([, a], [, b]) => b.turns - a.turns || b.lastActiveAt - a.lastActiveAt)
    .slice(0, CONVERSATIONS_KEPT);
  return Promise.all(
    busiest.map(async ([key, activity]) => ({
      key,
      ...activity,
      notes: await notesOf(sources, key, since, until),
    })),
  );
}

async function notesOf(sources: DigestSources, key: string, since: number, until: number): Promise<string[]> {
  const sessions = (await sources.archive?.recent(key, SESSIONS_READ)) ?? [];
  const archived = sessions
    .filter((session) => session.endedAt >= since && session.startedAt < until)
    .reverse()
    .map((session) => session.summary);
  const latestArchived = Math.max(since, ...sessions.map((session) => session.endedAt));
  const entries = (await sources.book?.recentEntries(key, ENTRIES_READ)) ?? [];
  const recent = entries
    .filter((entry) => entry.at > latestArchived && entry.at < until)
    .map((entry) => `${entry.role === "user" ? "asked" : "answered"}: ${entry.summary}`);
  return [...archived, ...recent].map((note) => shorten(note.replace(/\s+/g, " ").trim()));
}

/** A conversation key in the place: the place itself, or a thread under it. */
export function inPlace(key: string, place: string): boolean {
  return key === place || key.startsWith(`${place}:`);
}

function shorten(text: string): string {
  return text.length <= NOTE_CHARS ? text : `${text.slice(0, NOTE_CHARS - 1)}…`;
}
