import type { DatabaseSync, SQLInputValue, SQLOutputValue, StatementSync } from "node:sqlite";
import {
  inImmediateTransaction,
  openSqliteDatabase,
  textColumn as text,
} from "../../store/sqlite/sqlite-database.ts";
import {
  type ArchivedSession,
  type ArchivedSessionSummary,
  type ArchiveHit,
  type ArchiveQuery,
  type ArchiveReason,
  type ArchiveStore,
  searchTerms,
  transcriptText,
} from "./archive-store.ts";

/**
 * Our own tables in the embedded store's file; the FTS5 index covers summaries and transcripts.
 * Each session keeps the rowid of its search row (`search_rowid`), so replacing or forgetting a
 * session finds that row at once: `session_id` is UNINDEXED in FTS5, and deleting by it would scan
 * the whole index — a cost that grew with every session ever archived.
 */
const SCHEMA = `
  CREATE TABLE IF NOT EXISTS memory_sessions (
    id               TEXT PRIMARY KEY,
    conversation_key TEXT NOT NULL,
    workspace        TEXT NOT NULL,
    participants     TEXT NOT NULL,
    summary          TEXT NOT NULL,
    transcript       TEXT NOT NULL,
    message_count    INTEGER NOT NULL,
    token_estimate   INTEGER NOT NULL,
    started_at       INTEGER NOT NULL,
    ended_at         INTEGER NOT NULL,
    reason           TEXT NOT NULL,
    search_rowid     INTEGER
  ) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS memory_sessions_conversation ON memory_sessions (conversation_key, ended_at);

  CREATE TABLE IF NOT EXISTS memory_session_participants (
    session_id TEXT NOT NULL,
    workspace  TEXT NOT NULL,
    user_id    TEXT NOT NULL,
    PRIMARY KEY (session_id, user_id)
  ) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS memory_session_participants_user ON memory_session_participants (workspace, user_id);

  CREATE VIRTUAL TABLE IF NOT EXISTS memory_sessions_fts USING fts5(
    summary, transcript, session_id UNINDEXED, tokenize = 'unicode61 remove_diacritics 2'
  );
`;

const SUMMARY_COLUMNS =
  "s.id, s.conversation_key, s.workspace, s.participants, s.summary, s.message_count, s.token_estimate, s.started_at, s.ended_at, s.reason";

/** This conversation's sessions, or the user's in the workspace; in the time frame when one is given. */
const VISIBLE_IN_FRAME = `
  (s.conversation_key = ?1
    OR (?2 IS NOT NULL AND s.workspace = ?3 AND EXISTS (
      SELECT 1 FROM memory_session_participants p WHERE p.session_id = s.id AND p.user_id = ?2)))
  AND (?4 IS NULL OR s.ended_at >= ?4)
  AND (?5 IS NULL OR s.started_at < ?5)`;

/**
 * Archived sessions in the embedded SQLite file, searched with FTS5 (bm25 ranking, summaries
 * weighted double). A user-wide search joins on the participants table, so a session only comes
 * back to a user who wrote in it or to the conversation it belongs to.
 */
export class SqliteArchiveStore implements ArchiveStore {
  readonly #db: DatabaseSync;
  readonly #sql: ReturnType<typeof prepareStatements>;

  constructor(path: string) {
    this.#db = openSqliteDatabase(path);
    this.#db.exec(SCHEMA);
    linkSearchRows(this.#db);
    this.#sql = prepareStatements(this.#db);
  }

  async add(session: ArchivedSession): Promise<void> {
    inImmediateTransaction(this.#db, () => {
      this.#delete(session.id);
      const search = this.#sql.insertFts.run(session.summary, transcriptText(session.transcript), session.id);
      this.#sql.insertSession.run(...sessionColumns(session), search.lastInsertRowid);
      for (const userId of new Set(session.participants))
        this.#sql.insertParticipant.run(session.id, session.workspace, userId);
    });
  }

  async recent(conversationKey: string, limit: number): Promise<ArchivedSessionSummary[]> {
    return this.#sql.recent.all(conversationKey, limit).map(summaryOf);
  }

  async count(conversationKey: string): Promise<number> {
    return Number(this.#sql.count.get(conversationKey)?.count ?? 0);
  }

  async search(query: ArchiveQuery): Promise<ArchiveHit[]> {
    const terms = searchTerms(query.text);
    if (terms.length === 0 && !query.between) return [];
    const scope = [
      query.conversationKey,
      query.user?.id ?? null,
      query.user?.workspace ?? null,
      query.between?.from ?? null,
      query.between?.to ?? null,
      query.limit,
    ] as const;
    if (terms.length === 0)
      return this.#sql.inFrame.all(...scope).map((row) => ({ session: summaryOf(row) }));
    // Each word quoted (FTS5 syntax cannot leak in) and matched as a prefix; any word may match.
    const match = terms.map((term) => `"${term.replaceAll('"', '""')}"*`).join(" OR ");
    const rows = this.#sql.search.all(...scope, match);
    return rows.map((row) => {
      const excerpt =
        typeof row.excerpt === "string" && row.excerpt.trim() !== "" ? row.excerpt.trim() : undefined;
      return { session: summaryOf(row), ...(excerpt ? { excerpt } : {}) };
    });
  }

  async forget(conversationKey: string): Promise<number> {
    return inImmediateTransaction(this.#db, () => {
      const ids = this.#sql.idsOf.all(conversationKey).map((row) => text(row.id));
      for (const id of ids) this.#delete(id);
      return ids.length;
    });
  }

  async close(): Promise<void> {
    if (this.#db.isOpen) this.#db.close();
  }

  #delete(id: string): void {
    const searchRowid = this.#sql.searchRowidOf.get(id)?.search_rowid;
    if (typeof searchRowid === "number" || typeof searchRowid === "bigint")
      this.#sql.deleteFts.run(searchRowid);
    this.#sql.deleteParticipants.run(id);
    this.#sql.deleteSession.run(id);
  }
}

/**
 * Files written before sessions kept their search row's rowid get the column and the links, once,
 * in one pass over the index (not one scan per session); concurrent openers wait for the write lock
 * and find the column there.
 */
function linkSearchRows(db: DatabaseSync): void {
  const linked = () =>
    db
      .prepare("PRAGMA table_info(memory_sessions)")
      .all()
      .some((column) => column.name === "search_rowid");
  if (linked()) return;
  inImmediateTransaction(db, () => {
    if (linked()) return;
    db.exec("ALTER TABLE memory_sessions ADD COLUMN search_rowid INTEGER");
    const link = db.prepare("UPDATE memory_sessions SET search_rowid = ? WHERE id = ?");
    for (const row of db.prepare("SELECT rowid, session_id FROM memory_sessions_fts").all())
      link.run(row.rowid as number | bigint, text(row.session_id));
  });
}

/** A session's values in the column order of `memory_sessions`, up to `search_rowid`. */
export function sessionColumns(session: ArchivedSession): SQLInputValue[] {
  return [
    session.id,
    session.conversationKey,
    session.workspace,
    JSON.stringify(session.participants),
    session.summary,
    JSON.stringify(session.transcript),
    session.messageCount,
    session.tokenEstimate,
    session.startedAt,
    session.endedAt,
    session.reason,
  ];
}

function summaryOf(row: Record<string, SQLOutputValue>): ArchivedSessionSummary {
  return {
    id: text(row.id),
    conversationKey: text(row.conversation_key),
    workspace: text(row.workspace),
    participants: JSON.parse(text(row.participants)) as string[],
    summary: text(row.summary),
    messageCount: Number(row.message_count),
    tokenEstimate: Number(row.token_estimate),
    startedAt: Number(row.started_at),
    endedAt: Number(row.ended_at),
    reason: text(row.reason) as ArchiveReason,
  };
}

function prepareStatements(db: DatabaseSync) {
  const prepare = (sql: string): StatementSync => db.prepare(sql);
  return {
    insertSession: prepare(
      `INSERT INTO memory_sessions (id, conversation_key, workspace, participants, summary, transcript,
        message_count, token_estimate, started_at, ended_at, reason, search_rowid)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    insertParticipant: prepare(
      "INSERT INTO memory_session_participants (session_id, workspace, user_id) VALUES (?, ?, ?)",
    ),
    insertFts: prepare("INSERT INTO memory_sessions_fts (summary, transcript, session_id) VALUES (?, ?, ?)"),
    deleteSession: prepare("DELETE FROM memory_sessions WHERE id = ?"),
    deleteParticipants: prepare("DELETE FROM memory_session_participants WHERE session_id = ?"),
    searchRowidOf: prepare("SELECT search_rowid FROM memory_sessions WHERE id = ?"),
    deleteFts: prepare("DELETE FROM memory_sessions_fts WHERE rowid = ?"),
    idsOf: prepare("SELECT id FROM memory_sessions WHERE conversation_key = ?"),
    count: prepare("SELECT count(*) AS count FROM memory_sessions WHERE conversation_key = ?"),
    recent: prepare(
      `SELECT ${SUMMARY_COLUMNS} FROM memory_sessions s WHERE s.conversation_key = ? ORDER BY s.ended_at DESC LIMIT ?`,
    ),
    // ?1 conversation, ?2 user, ?3 workspace, ?4 from, ?5 to (both may be NULL), ?6 limit; ?7 the words.
    search: prepare(`
      SELECT ${SUMMARY_COLUMNS}, snippet(memory_sessions_fts, 1, '', '', '…', 16) AS excerpt
      FROM memory_sessions_fts f JOIN memory_sessions s ON s.id = f.session_id
      WHERE memory_sessions_fts MATCH ?7 AND ${VISIBLE_IN_FRAME}
      ORDER BY bm25(memory_sessions_fts, 2.0, 1.0), s.ended_at DESC
      LIMIT ?6`),
    inFrame: prepare(`
      SELECT ${SUMMARY_COLUMNS} FROM memory_sessions s
      WHERE ${VISIBLE_IN_FRAME}
      ORDER BY s.ended_at DESC
      LIMIT ?6`),
  };
}
