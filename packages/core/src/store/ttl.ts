/** Rejects a TTL the backends would read differently (Redis PX needs a positive integer). */
export function assertValidTtl(ttlMs: number): void {
  if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0) {
    throw new RangeError(`ttlMs must be a positive whole number of milliseconds, got ${ttlMs}`);
  }
}
