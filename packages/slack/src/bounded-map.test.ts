import { describe, expect, it } from "vitest";
import { BoundedMap } from "./bounded-map.ts";

describe("BoundedMap", () => {
  it("forgets the oldest entries past its capacity", () => {
    const map = new BoundedMap<string, number>(2);
    map.set("a", 1);
    map.set("b", 2);
    map.set("c", 3);
    expect([map.has("a"), map.get("b"), map.get("c"), map.size]).toEqual([false, 2, 3, 2]);
  });

  it("counts a key set again as new", () => {
    const map = new BoundedMap<string, number>(2);
    map.set("a", 1);
    map.set("b", 2);
    map.set("a", 10);
    map.set("c", 3);
    expect([map.get("a"), map.has("b"), map.get("c")]).toEqual([10, false, 3]);
  });
});
