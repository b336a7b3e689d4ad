/**
 * The real `switchboard start` as a child process — `node packages/cli/src/main.ts start`, as an
 * operator runs it — so a test can SIGKILL it at any point and start another on the same store.
 * Only the variables a test passes reach it: none of the Switchboard variables of this environment.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { ENV_OVERRIDES } from "../../../packages/cli/src/config/env-overrides.ts";

const MAIN = fileURLToPath(new URL("../../../packages/cli/src/main.ts", import.meta.url));

export interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export interface CliProcessOptions {
  /** Where switchboard.yaml is (and relative SQLite paths resolve). */
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  /** Names this process in failure messages. */
  readonly name: string;
  /** What stderr says once the process is ready; default "running on slack". */
  readonly readyText?: string;
}

export class CliProcess {
  readonly name: string;
  readonly exited: Promise<Exit>;
  #stderr = "";
  #stdout = "";
  readonly #child: ChildProcess;
  #exit: Exit | undefined;

  private constructor(options: CliProcessOptions) {
    this.name = options.name;
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const { variable } of ENV_OVERRIDES) delete env[variable];
    this.#child = spawn("node", ["--disable-warning=ExperimentalWarning", MAIN, "start"], {
      cwd: options.cwd,
      env: { ...env, ...options.env },
      // stdin stays open: with piped, ended input the console would stop at its end; Slack keeps it running.
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.#child.stdout?.on("data", (chunk: Buffer) => {
      this.#stdout += chunk.toString();
    });
    this.#child.stderr?.on("data", (chunk: Buffer) => {
      this.#stderr += chunk.toString();
    });
    this.exited = new Promise<Exit>((resolve, reject) => {
      this.#child.on("error", reject);
      this.#child.on("exit", (code, signal) => {
        this.#exit = { code, signal };
        resolve(this.#exit);
      });
    });
  }

  /** Starts the process and waits until it is ready (or fails, with its output in the error). */
  static async start(options: CliProcessOptions, timeoutMs = 40_000): Promise<CliProcess> {
    const cli = CliProcess.launch(options);
    await cli.waitForOutput(options.readyText ?? "running on slack", timeoutMs);
    return cli;
  }

  /** Starts the process without waiting for it to be ready (to kill it during its start-up). */
  static launch(options: CliProcessOptions): CliProcess {
    return new CliProcess(options);
  }

  get stderr(): string {
    return this.#stderr;
  }

  get stdout(): string {
    return this.#stdout;
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  get running(): boolean {
    return this.#exit === undefined;
  }

  /** Resolves when stderr contains `text`; rejects if the process exits first or the time is up. */
  async waitForOutput(text: string, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.#stderr.includes(text)) {
      if (this.#exit)
        throw new Error(`${this.name} exited (${describe(this.#exit)}) before "${text}":\n${this.#stderr}`);
      if (Date.now() > deadline)
        throw new Error(`${this.name}: no "${text}" within ${timeoutMs} ms:\n${this.#stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** SIGKILL: no handler runs, nothing is flushed or released — a crash. */
  async kill(): Promise<Exit> {
    if (this.running) this.#child.kill("SIGKILL");
    return this.exited;
  }

  /** SIGTERM: the clean stop an orchestrator asks for; resolves with how (and whether) it ended. */
  async terminate(): Promise<Exit> {
    if (this.running) this.#child.kill("SIGTERM");
    return this.exited;
  }
}

function describe(exit: Exit): string {
  return exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`;
}
