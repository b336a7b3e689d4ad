/**
 * The store URL was understood but the backend behind it could not be reached or opened.
 * `target` names the Redis host or the SQLite file so an operator knows where to look.
 */
export class StoreConnectionError extends Error {
  readonly target: string;
  constructor(target: string, problem: string, whatToCheck: string, options?: { cause?: unknown }) {
    super(`${problem} (${target}): ${describeCause(options?.cause)} — check ${whatToCheck}`, options);
    this.name = "StoreConnectionError";
    this.target = target;
  }
}

function describeCause(cause: unknown): string {
  if (cause instanceof AggregateError && cause.errors.length > 0) {
    return cause.errors.map(describeCause).join("; ");
  }
  if (cause instanceof Error) return cause.message || cause.name;
  return String(cause);
}
