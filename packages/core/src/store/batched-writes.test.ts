import { describe, expect, it } from "vitest";
import { BatchedWrites } from "./batched-writes.ts";

describe("BatchedWrites", () => {
  it("writes the first item at once and those added meanwhile together next, in order", async () => {
    const written: string[][] = [];
    const writes = new BatchedWrites<string>(async (items) => {
      written.push([...items]);
      await new Promise((resolve) => setImmediate(resolve));
    });
    await Promise.all(["a", "b", "c", "d"].map((item) => writes.add(item)));
    await writes.add("e");
    expect(written).toEqual([["a"], ["b", "c", "d"], ["e"]]);
  });

  it("fails the items of a failed batch only, goes on with the next, and says when it is idle", async () => {
    let idle = 0;
    const writes = new BatchedWrites<string>(
      async (items) => {
        await new Promise((resolve) => setImmediate(resolve));
        if (items.includes("bad")) throw new Error("the store is down");
      },
      () => {
        idle += 1;
      },
    );
    const first = writes.add("good");
    const failed = [writes.add("bad"), writes.add("with it")];
    await first;
    const after = writes.add("later");
    expect((await Promise.allSettled(failed)).map((outcome) => outcome.status)).toEqual([
      "rejected",
      "rejected",
    ]);
    await expect(after).resolves.toBeUndefined();
    await writes.flushed();
    expect(idle).toBe(1);
  });
});
