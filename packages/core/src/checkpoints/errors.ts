import { StoreOutageError } from "../store/errors.ts";

/** The checkpointer URL could not be understood; the message lists the forms that are. */
export class CheckpointerUrlError extends Error {
  readonly url: string;
  constructor(url: string, reason: string) {
    super(
      `checkpointer URL ${JSON.stringify(url)} is not usable: ${reason}; expected ${ACCEPTED_CHECKPOINTER_URLS}`,
    );
    this.name = "CheckpointerUrlError";
    this.url = url;
  }
}

export const ACCEPTED_CHECKPOINTER_URLS =
  "sqlite://./relative/path.db (relative to the working directory), sqlite:///absolute/path.db, " +
  "sqlite::memory:, redis://[user:password@]host[:port][/db][?prefix=name:], rediss://… (TLS), " +
  "postgres://user@host[:port]/database (or postgresql://), or memory://";

/**
 * A checkpointer call was made with a config that cannot address a checkpoint. This is a
 * programming error in the caller: the graph must be invoked with `configurable.thread_id`
 * (the conversation key).
 */
export class CheckpointConfigError extends Error {
  constructor(operation: string, missing: string) {
    super(`checkpoint ${operation} needs config.configurable.${missing}`);
    this.name = "CheckpointConfigError";
  }
}

/** The option values given to a saver are out of range. */
export class CheckpointOptionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CheckpointOptionError";
  }
}

/**
 * The SQLite file already holds tables named like ours but with another layout (for example
 * from LangGraph's own SQLite saver). We refuse rather than mix the two.
 */
export class CheckpointSchemaError extends Error {
  readonly location: string;
  constructor(location: string, detail: string) {
    super(
      `the checkpoint tables in ${location} have an unexpected layout (${detail}); ` +
        "point the checkpointer at a fresh database file or drop the old checkpoint tables",
    );
    this.name = "CheckpointSchemaError";
    this.location = location;
  }
}

/** A stored checkpoint value is not in the shape this saver writes: the data was changed outside it. */
export class CheckpointDataError extends Error {
  constructor(detail: string) {
    super(`stored checkpoint data is malformed: ${detail}`);
    this.name = "CheckpointDataError";
  }
}

/** The checkpointer URL was understood but its server could not be reached or set up. */
export class CheckpointerConnectionError extends Error {
  readonly target: string;
  constructor(target: string, problem: string, whatToCheck: string, options: { cause: unknown }) {
    super(`${problem} (${target}): ${describeCause(options.cause)}. Check ${whatToCheck}.`, options);
    this.name = "CheckpointerConnectionError";
    this.target = target;
  }
}

function describeCause(cause: unknown): string {
  // A refused connection to a name with IPv4 and IPv6 addresses fails with one error per address.
  if (cause instanceof AggregateError && cause.errors.length > 0)
    return cause.errors.map(describeCause).join("; ");
  if (cause instanceof Error) return cause.message || cause.name;
  return String(cause);
}

/**
 * The checkpointer's database could not be reached (Postgres stopped, restarting, unreachable).
 * A turn that meets it leaves its work queued; nothing half-written is read (each checkpoint is
 * written in one transaction).
 */
export class CheckpointerUnavailableError extends StoreOutageError {
  constructor(operation: string, options: { cause: unknown }) {
    const cause = options.cause instanceof Error ? options.cause.message : String(options.cause);
    super(
      `the checkpointer is unavailable (${operation}: ${cause}); the turn stays queued and runs again`,
      options,
    );
    this.name = "CheckpointerUnavailableError";
  }
}
