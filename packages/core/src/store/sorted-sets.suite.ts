import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SortedSets } from "./sorted-sets.ts";

/** One backend under test, opened fresh for every test. */
export interface SortedSetsFixture {
  readonly sets: SortedSets;
  /** A second instance over the same data, as another process would open it (absent for memory). */
  readonly sibling?: SortedSets;
  close(): Promise<void>;
}

/**
 * The behaviour every SortedSets backend must show. Set names are unique per test, so backends
 * that share state between tests (one Redis prefix per run) still give every test a clean slate.
 */
export function defineSortedSetsSuite(backend: string, openFixture: () => Promise<SortedSetsFixture>): void {
  describe(`SortedSets contract: ${backend}`, () => {
    let fixture: SortedSetsFixture;
    let sets: SortedSets;
    const unique = (label: string) => `${label}:${randomUUID()}`;

    beforeEach(async () => {
      fixture = await openFixture();
      sets = fixture.sets;
    });
    afterEach(async () => {
      await fixture.close();
    });

    it("returns members up to a score, lowest first, ties by member", async () => {
      const set = unique("due");
      await sets.apply([
        { set, member: "c", score: 30 },
        { set, member: "b", score: 10 },
        { set, member: "a", score: 10 },
        { set, member: "d", score: 40.5 },
      ]);
      expect(await sets.upTo(set, 30, 10)).toEqual([
        { member: "a", score: 10 },
        { member: "b", score: 10 },
        { member: "c", score: 30 },
      ]);
      expect(await sets.upTo(set, 9, 10)).toEqual([]);
      expect(await sets.upTo(set, Number.POSITIVE_INFINITY, 2)).toEqual([
        { member: "a", score: 10 },
        { member: "b", score: 10 },
      ]);
      expect(await sets.count(set)).toBe(4);
    });

    it("moves a member that is put again, and forgets one put with a null score", async () => {
      const set = unique("moves");
      await sets.apply([{ set, member: "m", score: 5 }]);
      await sets.apply([{ set, member: "m", score: 50 }]);
      expect(await sets.score(set, "m")).toBe(50);
      expect(await sets.upTo(set, 10, 10)).toEqual([]);
      await sets.apply([{ set, member: "m", score: null }]);
      expect(await sets.score(set, "m")).toBeUndefined();
      expect(await sets.count(set)).toBe(0);
      // Removing what is not there is not an error: sweepers and writers may race to remove.
      await sets.apply([{ set, member: "m", score: null }]);
    });

    it("keeps sets apart and moves a member between them in one apply", async () => {
      const open = unique("open");
      const closed = unique("closed");
      await sets.apply([{ set: open, member: "r1", score: 1 }]);
      await sets.apply([
        { set: open, member: "r1", score: null },
        { set: closed, member: "r1", score: 2 },
      ]);
      expect(await sets.count(open)).toBe(0);
      expect(await sets.upTo(closed, 2, 10)).toEqual([{ member: "r1", score: 2 }]);
    });

    it("takes conversation keys and timestamps as they are", async () => {
      const set = unique("slack:T1:C2:1700000000.000100");
      const member = "matrix:!room%3Ahs:$root";
      const now = Date.now();
      await sets.apply([{ set, member, score: now }]);
      expect(await sets.upTo(set, now, 1)).toEqual([{ member, score: now }]);
    });

    it("refuses an empty set name, a score that is not finite and a limit below one", async () => {
      await expect(sets.apply([{ set: "", member: "m", score: 1 }])).rejects.toThrow(RangeError);
      await expect(sets.apply([{ set: unique("s"), member: "m", score: Number.NaN }])).rejects.toThrow(
        RangeError,
      );
      await expect(
        sets.apply([{ set: unique("s"), member: "m", score: Number.POSITIVE_INFINITY }]),
      ).rejects.toThrow(RangeError);
      await expect(sets.upTo(unique("s"), 1, 0)).rejects.toThrow(RangeError);
    });

    it("applies nothing of a batch that holds one bad change", async () => {
      const set = unique("batch");
      await expect(
        sets.apply([
          { set, member: "good", score: 1 },
          { set, member: "bad", score: Number.NaN },
        ]),
      ).rejects.toThrow(RangeError);
      expect(await sets.count(set)).toBe(0);
    });

    it("reads a large set's due members without returning the rest", async () => {
      const set = unique("large");
      const changes = Array.from({ length: 2_000 }, (_, index) => ({
        set,
        member: `m${index}`,
        score: index,
      }));
      await sets.apply(changes);
      expect(await sets.upTo(set, 2, 100)).toHaveLength(3);
      expect(await sets.upTo(set, 1_999, 100)).toHaveLength(100);
      expect(await sets.count(set)).toBe(2_000);
    });

    it("shows one instance's changes to another over the same data", async ({ skip }) => {
      if (!fixture.sibling) skip("this backend has no second instance over the same data");
      const set = unique("shared");
      await sets.apply([{ set, member: "m", score: 7 }]);
      expect(await fixture.sibling?.upTo(set, 7, 10)).toEqual([{ member: "m", score: 7 }]);
    });
  });
}
