import type { Environment } from "./config/env-overrides.ts";

/** Everything a command reads from or writes to the outside world, so tests can run commands in-process. */
export interface CliContext {
  readonly env: Environment;
  readonly cwd: string;
  readonly stdin: NodeJS.ReadableStream & { readonly isTTY?: boolean };
  readonly stdout: NodeJS.WritableStream & { readonly isTTY?: boolean };
  readonly stderr: NodeJS.WritableStream;
  /** SIGINT/SIGTERM; start stops cleanly when it fires. */
  readonly shutdownSignal: AbortSignal;
  /** SIGHUP: `start` reloads its configuration when it fires. */
  readonly onReloadSignal?: (listener: () => void) => void;
}

/** The options every command understands. */
export interface CommonOptions {
  /** --config as given; undefined means ./switchboard.yaml. */
  readonly config: string | undefined;
  /** --role (start and doctor); undefined: the configuration's. */
  readonly role?: string | undefined;
}
