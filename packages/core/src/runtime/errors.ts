/**
 * An error whose `userMessage` may be shown in chat as is: one short sentence a user can act on.
 * Everything else that fails inside a turn reaches the user as a generic sentence with a reference,
 * and the log gets the detail under the same reference.
 */
export class UserFacingError extends Error {
  readonly userMessage: string;
  constructor(userMessage: string, options?: { cause?: unknown; detail?: string }) {
    super(
      options?.detail ?? userMessage,
      options?.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = "UserFacingError";
    this.userMessage = userMessage;
  }
}

/** The turn was cancelled (`/stop`, shutdown, a newer message under the interrupt policy). */
export class TurnCancelledError extends Error {
  readonly reason: string;
  constructor(reason: string) {
    super(`turn cancelled: ${reason}`);
    this.name = "TurnCancelledError";
    this.reason = reason;
  }
}

export function userMessageOf(error: unknown): string | undefined {
  if (error instanceof UserFacingError) return error.userMessage;
  if (error && typeof error === "object" && "userMessage" in error && typeof error.userMessage === "string") {
    return error.userMessage;
  }
  return undefined;
}

/** The abort reason of a turn cancelled because the process is stopping: its work stays queued. */
export const SHUTDOWN_REASON = "shutting down";

/** True when `signal` was aborted by a shutdown (the work is left for the next start), not by /stop. */
export function abortedByShutdown(signal: AbortSignal | undefined): boolean {
  return abortedWith(signal, SHUTDOWN_REASON);
}

/** The abort reason of a unit of work that ran past its time limit (`maxTurnMs`). */
export const TIME_LIMIT_REASON = "the turn ran past its time limit";

/** True when `signal` was aborted because the work ran past its time limit. */
export function abortedByTimeLimit(signal: AbortSignal | undefined): boolean {
  return abortedWith(signal, TIME_LIMIT_REASON);
}

function abortedWith(signal: AbortSignal | undefined, message: string): boolean {
  if (!signal?.aborted) return false;
  const reason: unknown = signal.reason;
  return (reason instanceof Error ? reason.message : String(reason)) === message;
}
