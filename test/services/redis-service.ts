import { findOnPath } from "./find-binary.ts";
import { freePort } from "./free-port.ts";
import { type ServerProcess, ServerStartError, startServerProcess } from "./server-process.ts";

export interface RunningService {
  readonly url: string;
  stop(): Promise<void>;
}

const ATTEMPTS = 3;

/**
 * A private, throw-away Redis for one test run: loopback only, a free port, nothing kept on disk.
 * Undefined when `redis-server` is not installed.
 */
export async function startPrivateRedis(directory: string): Promise<RunningService | undefined> {
  const binary = findOnPath("redis-server");
  if (binary === undefined) return undefined;
  let lastError: unknown;
  // Another program may take the free port between asking for it and binding it: try a few.
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const port = await freePort();
    try {
      const server: ServerProcess = await startServerProcess(
        binary,
        [
          ...["--port", String(port), "--bind", "127.0.0.1", "--dir", directory],
          ...["--save", "", "--appendonly", "no", "--daemonize", "no"],
          // The log goes to stdout, where the ready line (logged at notice level) is waited for.
          ...["--loglevel", "notice", "--logfile", ""],
        ],
        { readyLine: "Ready to accept connections" },
      );
      return { url: `redis://127.0.0.1:${port}`, stop: () => server.stop() };
    } catch (error) {
      if (!(error instanceof ServerStartError)) throw error;
      lastError = error;
    }
  }
  throw lastError;
}
