import { execFile } from "node:child_process";

export interface ProgramResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs a program to its end and returns what it printed, whatever its exit code (callers decide
 * what a failure means). `input` is written to its standard input, which is then closed.
 */
export function runProgram(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; input?: string; timeoutMs?: number },
): Promise<ProgramResult> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      command,
      args,
      {
        cwd: options.cwd,
        env: options.env,
        timeout: options.timeoutMs ?? 120_000,
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== "number") {
          reject(new Error(`${command} ${args.join(" ")} failed to run: ${error.message}\n${stderr}`));
          return;
        }
        resolve({ code: typeof error?.code === "number" ? error.code : 0, stdout, stderr });
      },
    );
    child.stdin?.end(options.input ?? "");
  });
}

/** Like runProgram, but a non-zero exit is an error that carries the program's output. */
export async function runProgramOk(
  command: string,
  args: readonly string[],
  options: Parameters<typeof runProgram>[2],
): Promise<ProgramResult> {
  const result = await runProgram(command, args, options);
  if (result.code !== 0) {
    throw new Error(
      `${command} ${args.join(" ")} exited with ${result.code}:\n${result.stdout}\n${result.stderr}`,
    );
  }
  return result;
}

/**
 * The environment without what the package manager running the tests exported (npm_* settings
 * would leak the workspace's configuration into a plain npm project) and without Switchboard's
 * own overrides (a developer's SWITCHBOARD_MODEL must not change what the test sees).
 */
export function cleanEnvironment(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (/^npm_/i.test(name) || name.startsWith("SWITCHBOARD_") || name.startsWith("PNPM_")) continue;
    env[name] = value;
  }
  return { ...env, ...extra };
}
