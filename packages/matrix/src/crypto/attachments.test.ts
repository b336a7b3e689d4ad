import { createHash } from "node:crypto";
import * as wasm from "@matrix-org/matrix-sdk-crypto-wasm";
import { describe, expect, it } from "vitest";
import { AttachmentDecryptionError, decryptAttachment, encryptAttachment } from "./attachments.ts";

const image = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 7) % 256));

describe("encrypted attachments (the spec's EncryptedFile)", () => {
  it("round-trips, with the fields and encodings the spec fixes", () => {
    const { data, info } = encryptAttachment(image);
    expect(data.equals(image)).toBe(false);
    expect(info).toMatchObject({ v: "v2", key: { kty: "oct", alg: "A256CTR", ext: true } });
    expect(info.key.key_ops).toEqual(expect.arrayContaining(["encrypt", "decrypt"]));
    expect(info.key.k).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(info.iv).toMatch(/^[A-Za-z0-9+/]{22}$/);
    expect(Buffer.from(info.iv, "base64").subarray(8)).toEqual(Buffer.alloc(8));
    expect(info.hashes.sha256).toBe(createHash("sha256").update(data).digest("base64").replace(/=+$/, ""));
    expect(decryptAttachment(data, { ...info, url: "mxc://hs/x" }).equals(image)).toBe(true);
  });

  it("agrees with the Matrix crypto library both ways", () => {
    const { data, info } = encryptAttachment(image);
    const theirs = wasm.Attachment.decrypt(new wasm.EncryptedAttachment(data, JSON.stringify(info)));
    expect(Buffer.from(theirs).equals(image)).toBe(true);
    const encrypted = wasm.Attachment.encrypt(image);
    const mine = decryptAttachment(
      encrypted.encryptedData,
      JSON.parse(encrypted.mediaEncryptionInfo ?? "{}"),
    );
    expect(mine.equals(image)).toBe(true);
  });

  it.each([
    [
      "a tampered file",
      (d: Buffer) => Buffer.concat([d.subarray(0, 10), Buffer.from([d[10]! ^ 1]), d.subarray(11)]),
      {},
      /SHA-256/,
    ],
    ["an unknown version", (d: Buffer) => d, { v: "v9" }, /version/],
    ["another algorithm", (d: Buffer) => d, { key: { kty: "oct", alg: "A128CBC", k: "x" } }, /A256CTR/],
    ["a short IV", (d: Buffer) => d, { iv: "AAAA" }, /IV is 3 bytes/],
  ])("refuses %s", (_name, tamper, override, message) => {
    const { data, info } = encryptAttachment(image);
    expect(() => decryptAttachment(tamper(data), { ...info, ...override })).toThrow(
      AttachmentDecryptionError,
    );
    expect(() => decryptAttachment(tamper(data), { ...info, ...override })).toThrow(message);
  });
});
