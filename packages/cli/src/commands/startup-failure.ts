import { ConfigError } from "../config/load-config.ts";

/**
 * Explains why start-up failed and returns the exit code. Configuration problems are listed one per
 * line (exit 2). Our typed errors (store unreachable, missing key, platform refused the token…) are
 * written for the operator, so their message is enough; JavaScript's built-in errors mean a bug, so
 * their stack is printed too.
 */
export function reportStartupFailure(error: unknown, stderr: NodeJS.WritableStream): number {
  if (error instanceof ConfigError) {
    stderr.write(
      `switchboard: the configuration is not valid:\n${error.problems.map((p) => `  ${p}\n`).join("")}`,
    );
    return 2;
  }
  if (error instanceof Error && !BUILT_IN_ERRORS.has(error.name)) {
    stderr.write(`switchboard: cannot start: ${error.message}\n`);
    return 1;
  }
  stderr.write(
    `switchboard: cannot start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  return 1;
}

const BUILT_IN_ERRORS = new Set([
  "Error",
  "TypeError",
  "RangeError",
  "ReferenceError",
  "SyntaxError",
  "EvalError",
  "URIError",
  "AggregateError",
]);
