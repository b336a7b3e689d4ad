import { decodeConversationKey, encodeConversationKey } from "../../conversation/ref.ts";
import type { SpeakerRole } from "../memory-book.ts";

/** One line of an archived transcript. */
export interface TranscriptLine {
  readonly role: SpeakerRole;
  readonly text: string;
}

/** Why a session was archived. */
export type ArchiveReason = "idle" | "requested";

/** An archived session without its transcript: what prompts and listings need. */
export interface ArchivedSessionSummary {
  /** `<conversation key>@<started at>`: archiving the same session twice overwrites, never duplicates. */
  readonly id: string;
  readonly conversationKey: string;
  /** Platform + first path element of the key (Slack team, Discord guild, Matrix room…). */
  readonly workspace: string;
  /** Ids of the users who wrote in the session; user-scoped search matches on these. */
  readonly participants: readonly string[];
  /** Two or three sentences. */
  readonly summary: string;
  readonly messageCount: number;
  readonly tokenEstimate: number;
  readonly startedAt: number;
  readonly endedAt: number;
  readonly reason: ArchiveReason;
}

export interface ArchivedSession extends ArchivedSessionSummary {
  /** The whole session, kept for search. */
  readonly transcript: readonly TranscriptLine[];
}

/** A search: always this conversation; with `user`, also that user's sessions in the same workspace. */
export interface ArchiveQuery {
  readonly text: string;
  readonly conversationKey: string;
  readonly user?: { readonly id: string; readonly workspace: string };
  /**
   * Only sessions that overlap `[from, to)` (epoch ms; started before `to`, ended at or after
   * `from`). With a time frame, a query without words lists the frame's sessions, newest first.
   */
  readonly between?: { readonly from: number; readonly to: number };
  readonly limit: number;
}

/** Whether a session overlaps the query's time frame (always, without one). */
export function inTimeFrame(
  session: Pick<ArchivedSessionSummary, "startedAt" | "endedAt">,
  between: ArchiveQuery["between"],
): boolean {
  return between === undefined || (session.startedAt < between.to && session.endedAt >= between.from);
}

export interface ArchiveHit {
  readonly session: ArchivedSessionSummary;
  /** A piece of the transcript, around a match where the transcript has one. */
  readonly excerpt?: string;
}

/**
 * Archived sessions: written when a session ends, read for the prompt (latest summaries) and by
 * the `search_memory` tool. SQLite (FTS5) for the embedded store, keyv (scan) for Redis and memory.
 */
export interface ArchiveStore {
  /** Stores the session, replacing one with the same id. */
  add(session: ArchivedSession): Promise<void>;
  /** The conversation's newest `limit` sessions, newest first. */
  recent(conversationKey: string, limit: number): Promise<ArchivedSessionSummary[]>;
  count(conversationKey: string): Promise<number>;
  /** Sessions matching any of the query's words (in its time frame), best match first. */
  search(query: ArchiveQuery): Promise<ArchiveHit[]>;
  /** Deletes the conversation's sessions; returns how many went. */
  forget(conversationKey: string): Promise<number>;
  close(): Promise<void>;
}

/** `slack:T1:C2:1700.1` → `slack:T1`; the scope user-wide search never leaves. */
export function workspaceOf(conversationKey: string): string {
  const ref = decodeConversationKey(conversationKey);
  return encodeConversationKey({ platform: ref.platform, path: ref.path.slice(0, 1) });
}

export function sessionId(conversationKey: string, startedAt: number): string {
  return `${conversationKey}@${startedAt}`;
}

/** Lowercased words of two or more letters/digits: the terms a query matches on. */
export function searchTerms(text: string): string[] {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]{2,}/gu) ?? [];
  return [...new Set(words)].slice(0, 16);
}

export function transcriptText(transcript: readonly TranscriptLine[]): string {
  return transcript.map((line) => `${line.role}: ${line.text}`).join("\n");
}
