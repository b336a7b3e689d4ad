import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempDirectory } from "../../store/test-backends.ts";
import { archivedSession } from "./archive-store.suite.ts";
import { transcriptText } from "./archive-store.ts";
import { SqliteArchiveStore, sessionColumns } from "./sqlite-archive-store.ts";

const dm = "slack:T1:D9";

/** The tables as files written before sessions kept the rowid of their search row. */
const EARLIER_SCHEMA = `
  CREATE TABLE memory_sessions (
    id TEXT PRIMARY KEY, conversation_key TEXT NOT NULL, workspace TEXT NOT NULL,
    participants TEXT NOT NULL, summary TEXT NOT NULL, transcript TEXT NOT NULL,
    message_count INTEGER NOT NULL, token_estimate INTEGER NOT NULL, started_at INTEGER NOT NULL,
    ended_at INTEGER NOT NULL, reason TEXT NOT NULL
  ) WITHOUT ROWID;
  CREATE VIRTUAL TABLE memory_sessions_fts USING fts5(
    summary, transcript, session_id UNINDEXED, tokenize = 'unicode61 remove_diacritics 2'
  );`;

describe("SqliteArchiveStore's search rows", () => {
  let directory: Awaited<ReturnType<typeof tempDirectory>>;
  let path: string;
  beforeEach(async () => {
    directory = await tempDirectory();
    path = join(directory.path, "archive.db");
  });
  afterEach(() => directory.remove());

  const searchRows = () => {
    const db = new DatabaseSync(path);
    try {
      return db
        .prepare("SELECT session_id FROM memory_sessions_fts ORDER BY session_id")
        .all()
        .map((row) => String(row.session_id));
    } finally {
      db.close();
    }
  };

  it("replacing and forgetting a session remove exactly its own search row", async () => {
    const archive = new SqliteArchiveStore(path);
    const first = archivedSession(dm, 1_000, { summary: "invoices for March" });
    const second = archivedSession(dm, 2_000, { summary: "the VPN again" });
    await archive.add(first);
    await archive.add(second);
    await archive.add({ ...first, summary: "invoices for March and April" });
    expect(searchRows()).toEqual([first.id, second.id].sort());
    expect((await archive.search({ conversationKey: dm, text: "April", limit: 5 })).length).toBe(1);
    expect(await archive.forget(dm)).toBe(2);
    expect(searchRows()).toEqual([]);
    await archive.close();
  });

  it("a file from before the link gets it on open: search, replace and forget keep working", async () => {
    const old = new DatabaseSync(path);
    old.exec(EARLIER_SCHEMA);
    const sessions = [1_000, 2_000, 3_000].map((at) =>
      archivedSession(dm, at, { summary: `payroll question ${at}`, lines: [`line ${at}`, "answer"] }),
    );
    // Search rows in another order than the sessions, as years of replacements leave them.
    for (const session of [...sessions].reverse())
      old
        .prepare("INSERT INTO memory_sessions_fts (summary, transcript, session_id) VALUES (?, ?, ?)")
        .run(session.summary, transcriptText(session.transcript), session.id);
    for (const session of sessions)
      old
        .prepare("INSERT INTO memory_sessions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
        .run(...sessionColumns(session));
    old.close();

    const archive = new SqliteArchiveStore(path);
    expect((await archive.search({ conversationKey: dm, text: "payroll", limit: 5 })).length).toBe(3);
    const [first, second, third] = sessions;
    if (!first || !second || !third) throw new Error("three sessions were made");
    await archive.add({ ...second, summary: "payroll question, answered" });
    expect(searchRows()).toEqual([first.id, second.id, third.id].sort());
    const hits = await archive.search({ conversationKey: dm, text: "answered", limit: 5 });
    expect(hits.map((hit) => hit.session.id)).toEqual([second.id]);
    await archive.close();
    // A second open finds the link made and changes nothing.
    const again = new SqliteArchiveStore(path);
    expect(await again.forget(dm)).toBe(3);
    expect(searchRows()).toEqual([]);
    await again.close();
  });
});
