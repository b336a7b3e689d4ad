import { describe, expect, it } from "vitest";
import { decideEncryption } from "./encryption.ts";

const missing = { available: false, reason: "the WASM crypto did not load" } as const;

describe("decideEncryption", () => {
  it.each([
    ["asked for, crypto loaded", true, { available: true } as const, { active: true }],
    ["asked for, crypto missing", true, missing, { active: false, reason: "the WASM crypto did not load" }],
    [
      "not asked for (crypto not loaded)",
      false,
      undefined,
      { active: false, reason: "matrix.encryption is off" },
    ],
  ])("%s", (_name, requested, support, state) => {
    expect(decideEncryption(requested, support)).toEqual(state);
  });
});
