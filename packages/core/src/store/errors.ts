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

/**
 * Something a turn stands on — the store, the checkpointer — cannot be used right now (down, full).
 * Not the turn's failure: the turn is cancelled without a word to the user, its work stays queued
 * and runs again from the last checkpoint once the dependency is back.
 */
export class StoreOutageError extends Error {}

/**
 * The store could not write because its disk (or SQLite's size limit) is full. Nothing of the
 * failed write is kept; intake refuses the message (the platform delivers it again) and a running
 * turn leaves its work queued, tried again once there is room.
 */
export class StoreFullError extends StoreOutageError {
  constructor(options: { cause: unknown }) {
    super(
      `the store's disk is full (${describeCause(options.cause)}): nothing new can be written until there is room; Switchboard carries on by itself once there is`,
      options,
    );
    this.name = "StoreFullError";
  }
}

/**
 * How a backend tells its connection's failures from a command's own. Each backend adds its check
 * when it connects (the Redis client's errors: `redis-connection.ts`), so the embedded store never
 * loads a Redis library just to recognise its errors.
 */
const outageChecks = new Set<(error: Error) => boolean>();

/** Adds a backend's check to `isStoreOutage` (once, however often its connections are made). */
export function recognizeOutages(check: (error: Error) => boolean): void {
  outageChecks.add(check);
}

/**
 * True when `error`, or what caused it, says a dependency of the turn is out — a `StoreOutageError`
 * or a backend's connection that dropped under a command — rather than the turn itself failing.
 */
export function isStoreOutage(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current instanceof Error; depth++) {
    if (current instanceof StoreOutageError) return true;
    for (const check of outageChecks) if (check(current)) return true;
    current = current.cause;
  }
  return false;
}

/** SQLITE_FULL (13): "database or disk is full", as node:sqlite reports it. */
const SQLITE_FULL = 13;

/** `error` as the typed store error it stands for, when it is one; else unchanged. */
export function asStoreError(error: unknown): unknown {
  if (error instanceof StoreFullError) return error;
  const errcode = (error as { errcode?: unknown } | null)?.errcode;
  if (typeof errcode === "number" && (errcode & 0xff) === SQLITE_FULL)
    return new StoreFullError({ cause: error });
  return error;
}
