/**
 * Loaded into the CLI with `--import` by the side-by-side's store count: counts what the embedded
 * store does — SQL statements run, and commits (an explicit COMMIT, or a write run outside any
 * transaction, which SQLite commits on its own) — over every connection of the process. On
 * SIGUSR2 it writes the counts so far, as JSON, to the file named by STORE_COUNTS_FILE.
 *
 * A figure of the work itself rather than of time: the same on a fast machine and a slow one.
 */
import { writeFileSync } from "node:fs";
import { DatabaseSync, StatementSync } from "node:sqlite";

const file = process.env.STORE_COUNTS_FILE;
if (!file) throw new Error("count-store-writes: STORE_COUNTS_FILE names no file");

const counts = { statements: 0, commits: 0 };
const connectionOf = new WeakMap<StatementSync, DatabaseSync>();
const WRITE = /^\s*(INSERT|UPDATE|DELETE|REPLACE)\b/i;

const prepare = DatabaseSync.prototype.prepare;
DatabaseSync.prototype.prepare = function (this: DatabaseSync, sql: string) {
  const statement = prepare.call(this, sql);
  connectionOf.set(statement, this);
  return statement;
};
const exec = DatabaseSync.prototype.exec;
DatabaseSync.prototype.exec = function (this: DatabaseSync, sql: string) {
  counts.statements += 1;
  if (/^\s*COMMIT\b/i.test(sql)) counts.commits += 1;
  return exec.call(this, sql);
};
for (const method of ["run", "get", "all"] as const) {
  const original = StatementSync.prototype[method] as (...args: unknown[]) => unknown;
  Object.defineProperty(StatementSync.prototype, method, {
    value: function (this: StatementSync, ...args: unknown[]) {
      counts.statements += 1;
      const connection = connectionOf.get(this);
      if (connection && !connection.isTransaction && WRITE.test(this.sourceSQL)) counts.commits += 1;
      return original.apply(this, args);
    },
    writable: true,
    configurable: true,
  });
}

process.on("SIGUSR2", () => writeFileSync(file, JSON.stringify(counts)));
