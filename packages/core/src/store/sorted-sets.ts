/**
 * Named sets of members ordered by a numeric score: the store's due-time and per-owner indexes
 * (open requests of one conversation, requests due for a notice, sessions due for archiving).
 * A sweeper asks for what is due (`upTo(set, now, limit)`) instead of listing everything, so its
 * cost follows the work that is due, not the size of the store. Sorted sets on Redis, an indexed
 * table on SQLite, a sorted array in memory; one shared test suite (`sorted-sets.suite.ts`).
 */
export interface SortedSets {
  /**
   * Applies every change together (one SQLite transaction, one Redis MULTI): a reader sees all of
   * them or none, so a member moving from one set to another is never in both or neither.
   */
  apply(changes: readonly SortedSetChange[]): Promise<void>;
  /** Members scored at most `maxScore` (Infinity for all), lowest score first, ties by member. */
  upTo(set: string, maxScore: number, limit: number): Promise<ScoredMember[]>;
  /** The member's score, or undefined when it is not in the set. */
  score(set: string, member: string): Promise<number | undefined>;
  count(set: string): Promise<number>;
}

/** Puts `member` into `set` at `score` (moving it if present), or takes it out when `score` is null. */
export interface SortedSetChange {
  readonly set: string;
  readonly member: string;
  readonly score: number | null;
}

export interface ScoredMember {
  readonly member: string;
  readonly score: number;
}

/** Shared argument checks, so every backend refuses the same mistakes the same way. */
export function assertValidChange(change: SortedSetChange): void {
  assertValidSetName(change.set);
  if (change.score !== null && !Number.isFinite(change.score)) {
    throw new RangeError(`sorted-set score must be a finite number, got ${change.score}`);
  }
}

export function assertValidSetName(set: string): void {
  if (set === "") throw new RangeError("sorted-set name must not be empty");
}

export function assertValidLimit(limit: number): void {
  if (!Number.isInteger(limit) || limit < 1) {
    throw new RangeError(`sorted-set read limit must be a positive integer, got ${limit}`);
  }
}

/** Lowest score first, then by member: the order every backend returns. */
export function compareScored(a: ScoredMember, b: ScoredMember): number {
  return a.score - b.score || (a.member < b.member ? -1 : a.member > b.member ? 1 : 0);
}
