import { createHmac, timingSafeEqual } from "node:crypto";

/** Slack signs with v0 and allows five minutes of clock difference — either way. */
export const SIGNATURE_WINDOW_SECONDS = 5 * 60;

export type SignatureVerdict = { readonly ok: true } | { readonly ok: false; readonly reason: string };

export interface SignedRequest {
  readonly timestamp: string | undefined;
  readonly signature: string | undefined;
  readonly rawBody: Buffer;
}

/**
 * X-Slack-Signature v0 check. A request older *or newer* than the window is refused: a timestamp
 * in the future is as much a replay risk as a stale one (Bolt only refuses stale ones).
 */
export function verifySignature(
  secret: string,
  request: SignedRequest,
  nowSeconds: number,
): SignatureVerdict {
  const { timestamp, signature } = request;
  if (timestamp === undefined || signature === undefined) return { ok: false, reason: "unsigned" };
  if (!/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: "bad timestamp" };
  const skew = Number(timestamp) - nowSeconds;
  if (skew < -SIGNATURE_WINDOW_SECONDS) return { ok: false, reason: "stale timestamp" };
  if (skew > SIGNATURE_WINDOW_SECONDS) return { ok: false, reason: "timestamp in the future" };
  const expected = `v0=${createHmac("sha256", secret).update(`v0:${timestamp}:`).update(request.rawBody).digest("hex")}`;
  const given = Buffer.from(signature);
  const wanted = Buffer.from(expected);
  if (given.length !== wanted.length || !timingSafeEqual(given, wanted))
    return { ok: false, reason: "signature mismatch" };
  return { ok: true };
}
