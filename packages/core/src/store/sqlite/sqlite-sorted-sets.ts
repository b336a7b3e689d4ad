import type { DatabaseSync, StatementSync } from "node:sqlite";
import { yieldToEventLoop } from "../../runtime/event-loop.ts";
import {
  assertValidChange,
  assertValidLimit,
  assertValidSetName,
  type ScoredMember,
  type SortedSetChange,
  type SortedSets,
} from "../sorted-sets.ts";
import { inImmediateTransaction, textColumn as text } from "./sqlite-database.ts";

/**
 * The table behind SortedSets, created by this file so the capability stays in one place. The
 * (set, score, member) index is what makes "what is due before T" a range read, never a scan.
 */
const SCHEMA = `
  CREATE TABLE IF NOT EXISTS sorted_set_members (
    set_name TEXT NOT NULL,
    member   TEXT NOT NULL,
    score    REAL NOT NULL,
    PRIMARY KEY (set_name, member)
  ) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS sorted_set_members_by_score ON sorted_set_members (set_name, score, member);
`;

/** SortedSets over the embedded SQLite file; `apply` with more than one change is one transaction. */
export class SqliteSortedSets implements SortedSets {
  readonly #db: DatabaseSync;
  readonly #sql: ReturnType<typeof prepareStatements>;

  constructor(db: DatabaseSync) {
    db.exec(SCHEMA);
    this.#db = db;
    this.#sql = prepareStatements(db);
  }

  async apply(changes: readonly SortedSetChange[]): Promise<void> {
    await yieldToEventLoop();
    changes.forEach(assertValidChange);
    const write = () => {
      for (const { set, member, score } of changes) {
        if (score === null) this.#sql.remove.run(set, member);
        else this.#sql.put.run(set, member, score);
      }
    };
    // One statement is atomic on its own; a transaction would only add two more.
    if (changes.length === 1) write();
    else if (changes.length > 1) inImmediateTransaction(this.#db, write);
  }

  async upTo(set: string, maxScore: number, limit: number): Promise<ScoredMember[]> {
    await yieldToEventLoop();
    assertValidSetName(set);
    assertValidLimit(limit);
    const rows =
      maxScore === Number.POSITIVE_INFINITY
        ? this.#sql.first.all(set, limit)
        : this.#sql.upTo.all(set, maxScore, limit);
    return rows.map((row) => ({ member: text(row.member), score: Number(row.score) }));
  }

  async score(set: string, member: string): Promise<number | undefined> {
    await yieldToEventLoop();
    assertValidSetName(set);
    const row = this.#sql.score.get(set, member);
    return row === undefined ? undefined : Number(row.score);
  }

  async count(set: string): Promise<number> {
    await yieldToEventLoop();
    assertValidSetName(set);
    return Number(this.#sql.count.get(set)?.count ?? 0);
  }
}

function prepareStatements(db: DatabaseSync) {
  const prepare = (sql: string): StatementSync => db.prepare(sql);
  return {
    put: prepare(`
      INSERT INTO sorted_set_members (set_name, member, score) VALUES (?, ?, ?)
      ON CONFLICT (set_name, member) DO UPDATE SET score = excluded.score`),
    remove: prepare("DELETE FROM sorted_set_members WHERE set_name = ? AND member = ?"),
    upTo: prepare(`
      SELECT member, score FROM sorted_set_members
      WHERE set_name = ? AND score <= ? ORDER BY score, member LIMIT ?`),
    first: prepare(`
      SELECT member, score FROM sorted_set_members WHERE set_name = ? ORDER BY score, member LIMIT ?`),
    score: prepare("SELECT score FROM sorted_set_members WHERE set_name = ? AND member = ?"),
    count: prepare("SELECT count(*) AS count FROM sorted_set_members WHERE set_name = ?"),
  };
}
