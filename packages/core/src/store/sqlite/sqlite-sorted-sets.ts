import type { DatabaseSync, StatementSync } from "node:sqlite";
import {
  assertValidChange,
  assertValidLimit,
  assertValidSetName,
  type ScoredMember,
  type SortedSetChange,
  type SortedSets,
} from "../sorted-sets.ts";
import { SqliteCommitGroup } from "./sqlite-commit-group.ts";
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
  readonly #commits: SqliteCommitGroup;

  constructor(db: DatabaseSync, commits = new SqliteCommitGroup(db)) {
    db.exec(SCHEMA);
    this.#db = db;
    this.#sql = prepareStatements(db);
    this.#commits = commits;
  }

  async apply(changes: readonly SortedSetChange[]): Promise<void> {
    changes.forEach(assertValidChange);
    if (changes.length === 0) return;
    const write = () => {
      for (const { set, member, score } of changes) {
        if (score === null) this.#sql.remove.run(set, member);
        else this.#sql.put.run(set, member, score);
      }
    };
    // One statement is atomic on its own; a transaction would only add two more.
    return this.#commits.run(changes.length === 1 ? write : () => inImmediateTransaction(this.#db, write));
  }

  async upTo(set: string, maxScore: number, limit: number): Promise<ScoredMember[]> {
    assertValidSetName(set);
    assertValidLimit(limit);
    return this.#commits.run(() => {
      const rows =
        maxScore === Number.POSITIVE_INFINITY
          ? this.#sql.first.all(set, limit)
          : this.#sql.upTo.all(set, maxScore, limit);
      return rows.map((row) => ({ member: text(row.member), score: Number(row.score) }));
    }, false);
  }

  async score(set: string, member: string): Promise<number | undefined> {
    assertValidSetName(set);
    return this.#commits.run(() => {
      const row = this.#sql.score.get(set, member);
      return row === undefined ? undefined : Number(row.score);
    }, false);
  }

  async count(set: string): Promise<number> {
    assertValidSetName(set);
    return this.#commits.run(() => Number(this.#sql.count.get(set)?.count ?? 0), false);
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
