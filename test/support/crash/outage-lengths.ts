/**
 * How long the store outage tests keep Redis down. CI runs the short lengths; the lengths the
 * issue of record names for a real deployment (60 s, 10 minutes) are run on demand:
 *
 *   SWITCHBOARD_TEST_OUTAGE_SECONDS=60,600 ./run test test/crash/redis-outage-cluster.e2e.test.ts
 */

/** The lengths (ms) to run: the variable's comma-separated seconds, or `ciSeconds`. */
export function outageLengthsMs(ciSeconds: readonly number[]): number[] {
  const asked = process.env.SWITCHBOARD_TEST_OUTAGE_SECONDS;
  const seconds =
    asked === undefined || asked.trim() === ""
      ? ciSeconds
      : asked.split(",").map((part) => {
          const value = Number(part.trim());
          if (!Number.isFinite(value) || value <= 0)
            throw new Error(`SWITCHBOARD_TEST_OUTAGE_SECONDS: "${part}" is not a number of seconds`);
          return value;
        });
  return seconds.map((value) => value * 1_000);
}

/** "5 s", "60 s", "10 min", for test names. */
export function outageLabel(ms: number): string {
  return ms >= 120_000 && ms % 60_000 === 0 ? `${ms / 60_000} min` : `${ms / 1_000} s`;
}
