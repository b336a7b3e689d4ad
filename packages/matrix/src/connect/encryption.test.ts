import { describe, expect, it } from "vitest";
import { decideEncryption } from "./encryption.ts";

const missing = { available: false, reason: "the native binding did not load" } as const;

describe("decideEncryption", () => {
  it.each([
    ["asked for, binding present", true, { available: true } as const, { active: true }],
    [
      "asked for, binding missing",
      true,
      missing,
      { active: false, reason: "the native binding did not load" },
    ],
    [
      "not asked for, binding present",
      false,
      { available: true } as const,
      { active: false, reason: "matrix.encryption is off" },
    ],
    [
      "not asked for, binding missing",
      false,
      missing,
      { active: false, reason: "matrix.encryption is off; besides, the native binding did not load" },
    ],
  ])("%s", (_name, requested, support, state) => {
    expect(decideEncryption(requested, support)).toEqual(state);
  });
});
