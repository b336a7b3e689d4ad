import type Keyv from "keyv";
import type { Store } from "../../store/types.ts";
import {
  type ArchivedSession,
  type ArchivedSessionSummary,
  type ArchiveHit,
  type ArchiveQuery,
  type ArchiveStore,
  inTimeFrame,
  searchTerms,
} from "./archive-store.ts";

/** Who may find a session in a user-wide search, kept per workspace so the scan never loads transcripts it cannot return. */
interface WorkspaceListing {
  readonly id: string;
  readonly participants: readonly string[];
}

/**
 * Archived sessions in keyv namespaces (Redis, memory). Search is a scan of the candidate
 * sessions — this conversation's, plus the asking user's in the same workspace — scored by how
 * often the query's words occur, summaries counting double. Sessions are few (one per stretch of
 * activity), so a scan stays cheap; the embedded store uses SQLite FTS5 instead.
 */
export class KeyvArchiveStore implements ArchiveStore {
  readonly #sessions: Keyv<ArchivedSession>;
  readonly #byConversation: Keyv<string[]>;
  readonly #byWorkspace: Keyv<WorkspaceListing[]>;

  constructor(store: Store) {
    this.#sessions = store.namespace<ArchivedSession>("memory-archive");
    this.#byConversation = store.namespace<string[]>("memory-archive-by-conversation");
    this.#byWorkspace = store.namespace<WorkspaceListing[]>("memory-archive-by-workspace");
  }

  async add(session: ArchivedSession): Promise<void> {
    await this.#sessions.set(session.id, session);
    const ids = (await this.#byConversation.get(session.conversationKey)) ?? [];
    if (!ids.includes(session.id))
      await this.#byConversation.set(session.conversationKey, [...ids, session.id]);
    const listed = (await this.#byWorkspace.get(session.workspace)) ?? [];
    const others = listed.filter((listing) => listing.id !== session.id);
    await this.#byWorkspace.set(session.workspace, [
      ...others,
      { id: session.id, participants: session.participants },
    ]);
  }

  async recent(conversationKey: string, limit: number): Promise<ArchivedSessionSummary[]> {
    const sessions = await this.#load(await this.#idsOf(conversationKey));
    return newestFirst(sessions).slice(0, limit).map(withoutTranscript);
  }

  async count(conversationKey: string): Promise<number> {
    return (await this.#idsOf(conversationKey)).length;
  }

  async search(query: ArchiveQuery): Promise<ArchiveHit[]> {
    const terms = searchTerms(query.text);
    if (terms.length === 0 && !query.between) return [];
    const ids = new Set(await this.#idsOf(query.conversationKey));
    if (query.user) {
      const userId = query.user.id;
      for (const listing of (await this.#byWorkspace.get(query.user.workspace)) ?? []) {
        if (listing.participants.includes(userId)) ids.add(listing.id);
      }
    }
    const scored = (await this.#load([...ids]))
      .filter((session) => inTimeFrame(session, query.between))
      .map((session) => ({ session, score: terms.length === 0 ? 1 : scoreOf(session, terms) }))
      .filter((candidate) => candidate.score > 0)
      .sort((a, b) => b.score - a.score || b.session.endedAt - a.session.endedAt);
    return scored.slice(0, query.limit).map(({ session }) => {
      const excerpt = excerptOf(session, terms);
      return { session: withoutTranscript(session), ...(excerpt ? { excerpt } : {}) };
    });
  }

  async forget(conversationKey: string): Promise<number> {
    const ids = await this.#idsOf(conversationKey);
    const sessions = await this.#load(ids);
    for (const workspace of new Set(sessions.map((session) => session.workspace))) {
      const listed = (await this.#byWorkspace.get(workspace)) ?? [];
      await this.#byWorkspace.set(
        workspace,
        listed.filter((listing) => !ids.includes(listing.id)),
      );
    }
    if (ids.length > 0) await this.#sessions.deleteMany(ids);
    await this.#byConversation.delete(conversationKey);
    return ids.length;
  }

  /** Nothing to do: the namespaces belong to the store and close with it. */
  async close(): Promise<void> {}

  async #idsOf(conversationKey: string): Promise<string[]> {
    return (await this.#byConversation.get(conversationKey)) ?? [];
  }

  async #load(ids: string[]): Promise<ArchivedSession[]> {
    if (ids.length === 0) return [];
    const found = await this.#sessions.getMany(ids);
    return found.filter((session): session is ArchivedSession => session !== undefined);
  }
}

function newestFirst(sessions: ArchivedSession[]): ArchivedSession[] {
  return [...sessions].sort((a, b) => b.endedAt - a.endedAt);
}

function withoutTranscript(session: ArchivedSession): ArchivedSessionSummary {
  const { transcript: _transcript, ...summary } = session;
  return summary;
}

function occurrences(text: string, term: string): number {
  return text.toLowerCase().match(new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(term)}`, "gu"))?.length ?? 0;
}

function scoreOf(session: ArchivedSession, terms: readonly string[]): number {
  let score = 0;
  for (const term of terms) {
    score += 2 * occurrences(session.summary, term);
    for (const line of session.transcript) score += occurrences(line.text, term);
  }
  return score;
}

function excerptOf(session: ArchivedSession, terms: readonly string[]): string | undefined {
  const line = session.transcript.find((candidate) =>
    terms.some((term) => occurrences(candidate.text, term) > 0),
  );
  if (!line) return undefined;
  const text = line.text.length > 160 ? `${line.text.slice(0, 157)}…` : line.text;
  return `${line.role}: ${text}`;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
