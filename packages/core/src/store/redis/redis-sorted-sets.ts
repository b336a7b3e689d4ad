import {
  assertValidChange,
  assertValidLimit,
  assertValidSetName,
  type ScoredMember,
  type SortedSetChange,
  type SortedSets,
} from "../sorted-sets.ts";
import type { RedisConnection } from "./redis-connection.ts";

/**
 * SortedSets as Redis sorted sets under `<prefix>zset:<name>`. Several changes go as one
 * MULTI/EXEC: one round trip, and no other client sees them half done.
 */
export class RedisSortedSets implements SortedSets {
  readonly #client: RedisConnection;
  readonly #prefix: string;

  constructor(client: RedisConnection, keyPrefix: string) {
    this.#client = client;
    this.#prefix = `${keyPrefix}zset:`;
  }

  async apply(changes: readonly SortedSetChange[]): Promise<void> {
    changes.forEach(assertValidChange);
    if (changes.length === 0) return;
    if (changes.length === 1) {
      await this.#change(changes[0] as SortedSetChange);
      return;
    }
    const transaction = this.#client.multi();
    for (const { set, member, score } of changes) {
      if (score === null) transaction.zRem(this.#key(set), member);
      else transaction.zAdd(this.#key(set), { score, value: member });
    }
    await transaction.exec();
  }

  async upTo(set: string, maxScore: number, limit: number): Promise<ScoredMember[]> {
    assertValidSetName(set);
    assertValidLimit(limit);
    const max = maxScore === Number.POSITIVE_INFINITY ? "+inf" : maxScore;
    const found = await this.#client.zRangeWithScores(this.#key(set), "-inf", max, {
      BY: "SCORE",
      LIMIT: { offset: 0, count: limit },
    });
    return found.map(({ value, score }) => ({ member: String(value), score: Number(score) }));
  }

  async score(set: string, member: string): Promise<number | undefined> {
    assertValidSetName(set);
    const score = await this.#client.zScore(this.#key(set), member);
    return score === null ? undefined : Number(score);
  }

  async count(set: string): Promise<number> {
    assertValidSetName(set);
    return this.#client.zCard(this.#key(set));
  }

  async #change({ set, member, score }: SortedSetChange): Promise<void> {
    if (score === null) await this.#client.zRem(this.#key(set), member);
    else await this.#client.zAdd(this.#key(set), { score, value: member });
  }

  #key(set: string): string {
    return `${this.#prefix}${set}`;
  }
}
