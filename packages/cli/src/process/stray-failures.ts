import type { Logger } from "@switchboard/core";

/** The process events this module listens to (`process`, or an emitter in tests). */
export interface FailureSource {
  on(event: "unhandledRejection", listener: (reason: unknown) => void): unknown;
  on(event: "uncaughtException", listener: (error: Error, origin: string) => void): unknown;
}

export interface StrayFailures {
  /** Rejections nobody handled since start. */
  readonly rejections: number;
}

/**
 * Failures that escaped every handler. A rejected promise nobody awaited (a library's background
 * task, one bad event) is logged with its stack and counted, and the process goes on: one bad
 * input must not take down every conversation. A thrown exception that reached the top may have
 * left state half-changed, so it is logged and the process ends with `exit(1)`, for the
 * supervisor to restart it.
 */
export function reportStrayFailures(
  source: FailureSource,
  logger: Logger,
  exit: (code: number) => void,
): StrayFailures {
  let rejections = 0;
  source.on("unhandledRejection", (reason) => {
    rejections += 1;
    logger.error("a background operation failed and nothing was waiting for it; carrying on", {
      error: reason instanceof Error ? reason : new Error(describe(reason)),
      unhandledRejections: rejections,
    });
  });
  source.on("uncaughtException", (error, origin) => {
    logger.error("an unexpected error reached the top of the process; stopping", { error, origin });
    exit(1);
  });
  return {
    get rejections() {
      return rejections;
    },
  };
}

function describe(reason: unknown): string {
  try {
    return `rejected with ${JSON.stringify(reason) ?? String(reason)}`;
  } catch {
    return `rejected with ${String(reason)}`;
  }
}
