import { createHmac, timingSafeEqual } from "node:crypto";

/** Signed over `<timestamp>.<raw body>`; a timestamp older than this is a replay, whatever the signature. */
export const WEBHOOK_MAX_AGE_SECONDS = 5 * 60;

export type SignatureVerdict = "valid" | "missing" | "malformed" | "stale" | "mismatch";

export function signWebhook(secret: string, timestampSeconds: number, body: string): string {
  return `v1=${createHmac("sha256", secret).update(`${timestampSeconds}.${body}`).digest("hex")}`;
}

export function verifyWebhookSignature(input: {
  secret: string;
  timestamp: string | undefined;
  signature: string | undefined;
  body: string;
  nowSeconds: number;
}): SignatureVerdict {
  if (!input.timestamp || !input.signature) return "missing";
  if (!/^\d+$/.test(input.timestamp) || !/^v1=[0-9a-f]{64}$/.test(input.signature)) return "malformed";
  const timestamp = Number(input.timestamp);
  if (Math.abs(input.nowSeconds - timestamp) > WEBHOOK_MAX_AGE_SECONDS) return "stale";
  const expected = Buffer.from(signWebhook(input.secret, timestamp, input.body));
  const given = Buffer.from(input.signature);
  return expected.length === given.length && timingSafeEqual(expected, given) ? "valid" : "mismatch";
}
