import { ConfigError } from "../config/load-config.ts";

/**
 * Explains why start-up failed and returns the exit code. Configuration problems are listed one per
 * line; anything else (store unreachable, missing key, adapter refused) prints its message, which
 * names what to fix. The stack is kept for errors we did not anticipate.
 */
export function reportStartupFailure(error: unknown, stderr: NodeJS.WritableStream): number {
  if (error instanceof ConfigError) {
    stderr.write(
      `switchboard: the configuration is not valid:\n${error.problems.map((p) => `  ${p}\n`).join("")}`,
    );
    return 2;
  }
  if (error instanceof Error && KNOWN_FAILURES.has(error.name)) {
    stderr.write(`switchboard: cannot start: ${error.message}\n`);
    return 1;
  }
  stderr.write(
    `switchboard: cannot start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  return 1;
}

/** Errors whose message is written for the operator; no stack needed. */
const KNOWN_FAILURES = new Set([
  "StoreUrlError",
  "StoreConnectionError",
  "ModelConfigError",
  "AdapterUnavailableError",
  "CheckpointerUrlError",
  "CheckpointSchemaError",
  "UnknownToolError",
]);
