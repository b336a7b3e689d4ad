import { describe, expect, it } from "vitest";
import { signWebhook, verifyWebhookSignature } from "./webhook-signature.ts";

describe("verifyWebhookSignature", () => {
  const secret = "s3cret";
  const body = '{"event":"run_completed"}';
  const now = 1_800_000_000;
  const signed = signWebhook(secret, now, body);
  it.each([
    ["valid", { timestamp: String(now), signature: signed }, "valid"],
    [
      "4 minutes old",
      { timestamp: String(now - 240), signature: signWebhook(secret, now - 240, body) },
      "valid",
    ],
    [
      "6 minutes old",
      { timestamp: String(now - 360), signature: signWebhook(secret, now - 360, body) },
      "stale",
    ],
    [
      "from the future",
      { timestamp: String(now + 360), signature: signWebhook(secret, now + 360, body) },
      "stale",
    ],
    ["other secret", { timestamp: String(now), signature: signWebhook("other", now, body) }, "mismatch"],
    ["other timestamp", { timestamp: String(now - 1), signature: signed }, "mismatch"],
    ["no headers", { timestamp: undefined, signature: undefined }, "missing"],
    ["garbage", { timestamp: "yesterday", signature: signed }, "malformed"],
  ])("%s → %s", (_label, headers, verdict) => {
    expect(verifyWebhookSignature({ secret, body, nowSeconds: now, ...headers })).toBe(verdict);
  });

  it("rejects a changed body", () => {
    expect(
      verifyWebhookSignature({
        secret,
        body: `${body} `,
        nowSeconds: now,
        timestamp: String(now),
        signature: signed,
      }),
    ).toBe("mismatch");
  });
});
