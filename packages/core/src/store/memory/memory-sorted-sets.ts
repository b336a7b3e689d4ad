import {
  assertValidChange,
  assertValidLimit,
  assertValidSetName,
  compareScored,
  type ScoredMember,
  type SortedSetChange,
  type SortedSets,
} from "../sorted-sets.ts";

/** One set: members kept in score order (binary search) plus a map for lookups by member. */
class OrderedMembers {
  readonly ordered: ScoredMember[] = [];
  readonly scores = new Map<string, number>();

  put(member: string, score: number): void {
    this.remove(member);
    const entry = { member, score };
    this.ordered.splice(this.#position(entry), 0, entry);
    this.scores.set(member, score);
  }

  remove(member: string): void {
    const score = this.scores.get(member);
    if (score === undefined) return;
    this.ordered.splice(this.#position({ member, score }), 1);
    this.scores.delete(member);
  }

  /** The first index whose entry does not sort before `entry`. */
  #position(entry: ScoredMember): number {
    let low = 0;
    let high = this.ordered.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (compareScored(this.ordered[middle] as ScoredMember, entry) < 0) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}

/** SortedSets in this process's memory, for tests; nothing awaits between changes, so `apply` is atomic. */
export class MemorySortedSets implements SortedSets {
  readonly #sets = new Map<string, OrderedMembers>();

  async apply(changes: readonly SortedSetChange[]): Promise<void> {
    changes.forEach(assertValidChange);
    for (const { set, member, score } of changes) {
      if (score === null) {
        const members = this.#sets.get(set);
        members?.remove(member);
        if (members?.scores.size === 0) this.#sets.delete(set);
      } else {
        let members = this.#sets.get(set);
        if (!members) {
          members = new OrderedMembers();
          this.#sets.set(set, members);
        }
        members.put(member, score);
      }
    }
  }

  async upTo(set: string, maxScore: number, limit: number): Promise<ScoredMember[]> {
    assertValidSetName(set);
    assertValidLimit(limit);
    const found: ScoredMember[] = [];
    for (const entry of this.#sets.get(set)?.ordered ?? []) {
      if (entry.score > maxScore || found.length === limit) break;
      found.push({ ...entry });
    }
    return found;
  }

  async score(set: string, member: string): Promise<number | undefined> {
    assertValidSetName(set);
    return this.#sets.get(set)?.scores.get(member);
  }

  async count(set: string): Promise<number> {
    assertValidSetName(set);
    return this.#sets.get(set)?.scores.size ?? 0;
  }
}
