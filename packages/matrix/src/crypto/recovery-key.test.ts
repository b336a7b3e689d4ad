import { randomBytes } from "node:crypto";
import * as jsSdk from "matrix-js-sdk/lib/crypto-api/recovery-key.js";
import { describe, expect, it } from "vitest";
import { matrixAdapterConfigSchema } from "../config.ts";
import { decodeRecoveryKey, encodeRecoveryKey, newRecoveryKey, RecoveryKeyError } from "./recovery-key.ts";

describe("Matrix recovery keys", () => {
  it("reads and writes the format Matrix clients use (checked against matrix-js-sdk)", () => {
    const key = randomBytes(32);
    const ours = encodeRecoveryKey(key);
    expect(ours).toMatch(/^(\S{4} )+\S{1,4}$/);
    expect(Buffer.from(jsSdk.decodeRecoveryKey(ours))).toEqual(key);
    const theirs = jsSdk.encodeRecoveryKey(key) ?? "";
    expect(Buffer.from(decodeRecoveryKey(theirs))).toEqual(key);
    // Spaces are how people copy it; they do not matter.
    expect(Buffer.from(decodeRecoveryKey(theirs.replace(/\s/g, "")))).toEqual(key);
  });

  it.each([
    [
      "a mistyped character",
      (key: string) => `${key.slice(0, -1)}${key.endsWith("a") ? "b" : "a"}`,
      /parity|prefix|long/,
    ],
    [
      "a character base58 does not use",
      (key: string) => `0${key.slice(1)}`,
      /characters base58 does not use/,
    ],
    ["a key cut short", (key: string) => key.slice(0, 20), /bytes long/],
  ])("refuses %s, saying why", (_case, spoil, reason) => {
    // A fixed key: the spoiled text is the same every run.
    const spoiled = spoil(encodeRecoveryKey(Buffer.alloc(32, 7)));
    expect(() => decodeRecoveryKey(spoiled)).toThrow(RecoveryKeyError);
    expect(() => decodeRecoveryKey(spoiled)).toThrow(reason);
  });

  it("is checked when the configuration is read", () => {
    const base = { homeserverUrl: "https://hs.example", accessToken: "t" };
    expect(
      matrixAdapterConfigSchema.safeParse({ ...base, encryption: { recoveryKey: newRecoveryKey() } }).success,
    ).toBe(true);
    const wrong = matrixAdapterConfigSchema.safeParse({
      ...base,
      encryption: { recoveryKey: "EsTc not a key" },
    });
    expect(wrong.error?.issues[0]).toMatchObject({
      path: ["encryption", "recoveryKey"],
      message: expect.stringMatching(/^not a Matrix recovery key: /),
    });
  });
});
