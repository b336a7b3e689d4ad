import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { verifySignature } from "./request-signature.ts";

const SECRET = "secret";
const NOW = 1_800_000_000;
const body = Buffer.from('{"type":"event_callback"}');
const sign = (timestamp: number, secret = SECRET) =>
  `v0=${createHmac("sha256", secret).update(`v0:${timestamp}:${body.toString()}`).digest("hex")}`;

describe("verifySignature", () => {
  const cases = [
    { name: "a fresh, correct signature", timestamp: NOW, signature: sign(NOW), expected: { ok: true } },
    { name: "4:59 in the past", timestamp: NOW - 299, signature: sign(NOW - 299), expected: { ok: true } },
    { name: "4:59 in the future", timestamp: NOW + 299, signature: sign(NOW + 299), expected: { ok: true } },
    {
      name: "more than 5 minutes old",
      timestamp: NOW - 301,
      signature: sign(NOW - 301),
      expected: { ok: false, reason: "stale timestamp" },
    },
    {
      name: "more than 5 minutes in the future",
      timestamp: NOW + 301,
      signature: sign(NOW + 301),
      expected: { ok: false, reason: "timestamp in the future" },
    },
    {
      name: "another secret",
      timestamp: NOW,
      signature: sign(NOW, "other"),
      expected: { ok: false, reason: "signature mismatch" },
    },
    {
      name: "a short signature",
      timestamp: NOW,
      signature: "v0=ab",
      expected: { ok: false, reason: "signature mismatch" },
    },
  ];
  for (const { name, timestamp, signature, expected } of cases) {
    it(name, () => {
      expect(
        verifySignature(SECRET, { timestamp: String(timestamp), signature, rawBody: body }, NOW),
      ).toEqual(expected);
    });
  }

  it("refuses a request without headers or with a timestamp that is no number", () => {
    expect(
      verifySignature(SECRET, { timestamp: undefined, signature: undefined, rawBody: body }, NOW),
    ).toEqual({
      ok: false,
      reason: "unsigned",
    });
    expect(verifySignature(SECRET, { timestamp: "1e9", signature: sign(NOW), rawBody: body }, NOW)).toEqual({
      ok: false,
      reason: "bad timestamp",
    });
  });
});
