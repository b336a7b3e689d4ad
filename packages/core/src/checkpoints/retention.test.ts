import type { CheckpointMetadata } from "@langchain/langgraph-checkpoint";
import { describe, expect, it } from "vitest";
import { CheckpointOptionError } from "./errors.ts";
import { mayPruneAfter, resolveKeepCheckpoints, rootCheckpointOf } from "./retention.ts";

const metadata = (extra: Partial<CheckpointMetadata> = {}): CheckpointMetadata => ({
  source: "loop",
  step: 3,
  parents: {},
  ...extra,
});

describe("resolveKeepCheckpoints", () => {
  it.each([
    [undefined, 5],
    [2, 2],
    [40, 40],
    [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY],
  ])("%s → %s", (given, expected) => {
    expect(resolveKeepCheckpoints(given)).toBe(expected);
  });

  it.each([1, 0, -3, 2.5, Number.NaN])("refuses %s", (given) => {
    expect(() => resolveKeepCheckpoints(given)).toThrow(CheckpointOptionError);
  });
});

describe("mayPruneAfter", () => {
  it.each([
    ["an ordinary checkpoint", metadata(), 5, true],
    ["any checkpoint when everything is kept", metadata(), Number.POSITIVE_INFINITY, false],
    [
      "a checkpoint of a thread with delta channels",
      metadata({ counters_since_delta_snapshot: { messages: [2, 3] } }),
      5,
      false,
    ],
  ])("%s → %s", (_case, given, keep, expected) => {
    expect(mayPruneAfter(given, keep)).toBe(expected);
  });
});

describe("rootCheckpointOf", () => {
  it.each([
    ["a root checkpoint", "", metadata({ parents: { "": "ignored" } }), undefined],
    ["a subgraph checkpoint", "agent:1f0", metadata({ parents: { "": "root-7" } }), "root-7"],
    [
      "a nested subgraph checkpoint",
      "agent:1f0|tool:2a1",
      metadata({ parents: { "": "root-7", "agent:1f0": "sub-2" } }),
      "root-7",
    ],
    ["a subgraph checkpoint without parents", "agent:1f0", metadata(), undefined],
  ])("%s → %s", (_case, namespace, given, expected) => {
    expect(rootCheckpointOf(namespace, given)).toBe(expected);
  });
});
