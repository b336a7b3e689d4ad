import { createHash } from "node:crypto";

/** Discord nonces are at most 25 characters: a digest of the idempotency key, the same on every attempt. */
export function discordNonce(idempotencyKey: string): string {
  return createHash("sha256").update(idempotencyKey).digest("base64url").slice(0, 25);
}
