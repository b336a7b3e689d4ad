import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { Store } from "@switchboard/core";

/** The console token's shortest accepted length: anything guessable is refused at start. */
export const MIN_CONSOLE_TOKEN_LENGTH = 16;

/**
 * Compares two secrets in time that does not depend on where they differ. Both sides are hashed
 * first so the comparison also hides the expected length.
 */
export function sameSecret(given: string, expected: string): boolean {
  const a = createHash("sha256").update(given).digest();
  const b = createHash("sha256").update(expected).digest();
  return timingSafeEqual(a, b);
}

/**
 * The browser's session cookie: derived from the token, never the token itself, so a cookie read
 * off a machine does not reveal the token an operator types or configures elsewhere.
 */
export function sessionProof(token: string): string {
  return createHmac("sha256", token).update("switchboard console session v1").digest("base64url");
}

export interface ConsoleTokenResolution {
  readonly token: string;
  /** `configured`: from config or environment; `stored`: generated on an earlier start; `generated`: new now. */
  readonly source: "configured" | "stored" | "generated";
}

/**
 * The configured token, else the one generated on an earlier start (kept in the store so a
 * restart does not lock the operator out), else a new random one, stored.
 */
export async function resolveConsoleToken(
  store: Store,
  configured: string | undefined,
): Promise<ConsoleTokenResolution> {
  if (configured) return { token: configured, source: "configured" };
  const saved = store.namespace<string>("console-auth");
  const stored = await saved.get("token");
  if (stored) return { token: stored, source: "stored" };
  const token = randomBytes(24).toString("base64url");
  await saved.set("token", token);
  return { token, source: "generated" };
}
