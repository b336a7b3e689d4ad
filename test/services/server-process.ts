import { type ChildProcess, type SpawnOptions, spawn } from "node:child_process";
import { once } from "node:events";

/** A server program the test run started and must stop. */
export interface ServerProcess {
  /** Stops the server and waits until it has exited. */
  stop(): Promise<void>;
}

export class ServerStartError extends Error {}

const STOP_GRACE_MS = 10_000;

/**
 * Starts `command` and resolves once its output contains `readyLine`. Rejects with the program's
 * output when it exits first or stays silent for `timeoutMs`, so a failed start explains itself.
 * A server still running when this process exits is killed, so an aborted test run leaves none behind.
 */
export async function startServerProcess(
  command: string,
  args: readonly string[],
  options: { readyLine: string; timeoutMs?: number; stopSignal?: NodeJS.Signals; spawn?: SpawnOptions },
): Promise<ServerProcess> {
  const child = spawn(command, args, { ...options.spawn, stdio: ["ignore", "pipe", "pipe"] });
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);
  let output = "";
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new ServerStartError(
              `${command} was not ready within ${options.timeoutMs ?? 30_000} ms:\n${output}`,
            ),
          ),
        options.timeoutMs ?? 30_000,
      );
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes(options.readyLine)) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout?.on("data", onData);
      child.stderr?.on("data", onData);
      child.once("error", (error) => {
        clearTimeout(timer);
        reject(new ServerStartError(`${command} could not be started: ${error.message}`));
      });
      child.once("exit", (code, signal) => {
        clearTimeout(timer);
        reject(new ServerStartError(`${command} exited (${signal ?? code}) before it was ready:\n${output}`));
      });
    });
  } catch (error) {
    await stopChild(child, "SIGKILL");
    process.off("exit", killOnExit);
    throw error;
  }
  // Keep draining the pipes so a chatty server never blocks on a full buffer.
  child.stdout?.resume();
  child.stderr?.resume();
  return {
    async stop() {
      await stopChild(child, options.stopSignal ?? "SIGTERM");
      process.off("exit", killOnExit);
    },
  };
}

async function stopChild(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  child.kill(signal);
  const timer = setTimeout(() => child.kill("SIGKILL"), STOP_GRACE_MS);
  await exited;
  clearTimeout(timer);
}
