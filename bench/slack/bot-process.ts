/**
 * A bot under test in a process of its own: spawned with `node`, ready once its output says so,
 * its CPU time read from `/proc/<pid>/stat` (user + system, both threads of V8 and libuv included),
 * stopped with SIGTERM as an orchestrator stops it. Output is drained (a full pipe would stall the
 * bot) and only its tail kept, for failure messages.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { processCpuMs } from "../support/process-cpu.ts";

const TAIL_CHARS = 8_000;

export interface BotProcessOptions {
  /** Names the process in failure messages. */
  readonly name: string;
  /** Everything after `node`: flags, the script, its arguments. */
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /** What stdout or stderr says once the bot is ready for events. */
  readonly ready: RegExp;
  readonly readyTimeoutMs?: number;
}

export class BotProcess {
  readonly name: string;
  readonly #child: ChildProcess;
  readonly #exited: Promise<void>;
  #output = "";
  #exit: string | undefined;

  private constructor(options: BotProcessOptions) {
    this.name = options.name;
    this.#child = spawn(process.execPath, [...options.args], {
      cwd: options.cwd,
      env: options.env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    const keep = (chunk: Buffer) => {
      this.#output = (this.#output + chunk.toString()).slice(-TAIL_CHARS);
    };
    this.#child.stdout?.on("data", keep);
    this.#child.stderr?.on("data", keep);
    this.#exited = new Promise((resolve) => {
      this.#child.on("exit", (code, signal) => {
        this.#exit = signal ? `signal ${signal}` : `code ${code}`;
        resolve();
      });
    });
  }

  static async start(options: BotProcessOptions): Promise<BotProcess> {
    const bot = new BotProcess(options);
    const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
    while (!options.ready.test(bot.#output)) {
      if (bot.#exit !== undefined) throw new Error(`${bot.name} exited (${bot.#exit}):\n${bot.#output}`);
      if (Date.now() > deadline) {
        await bot.stop();
        throw new Error(`${bot.name} was not ready in time:\n${bot.#output}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return bot;
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  get output(): string {
    return this.#output;
  }

  /** The text the bot printed that matches `pattern`'s first group (e.g. the port it listens on). */
  printed(pattern: RegExp): string {
    const match = pattern.exec(this.#output)?.[1];
    if (match === undefined) throw new Error(`${this.name} printed nothing matching ${pattern}`);
    return match;
  }

  /** CPU milliseconds the process has used so far (user + system). */
  cpuMs(): number {
    const pid = this.#child.pid;
    if (pid === undefined || this.#exit !== undefined) throw new Error(`${this.name} is not running`);
    return processCpuMs(pid);
  }

  /**
   * Resolves once the process has used no CPU for `quietMs` (polled every 10 ms), with the moment
   * (performance.now()) its CPU time last moved: the end of the work it still had queued.
   */
  async quiet(quietMs = 250, timeoutMs = 120_000): Promise<number> {
    const deadline = performance.now() + timeoutMs;
    let last = this.cpuMs();
    let lastMoved = performance.now();
    while (performance.now() - lastMoved < quietMs) {
      if (performance.now() > deadline) throw new Error(`${this.name} never went quiet`);
      await new Promise((resolve) => setTimeout(resolve, 10));
      const now = this.cpuMs();
      if (now !== last) {
        last = now;
        lastMoved = performance.now();
      }
    }
    return lastMoved;
  }

  /** SIGTERM, then SIGKILL if it has not ended within `graceMs`. */
  async stop(graceMs = 10_000): Promise<void> {
    if (this.#exit !== undefined) return;
    this.#child.kill("SIGTERM");
    const timer = setTimeout(() => this.#child.kill("SIGKILL"), graceMs);
    await this.#exited;
    clearTimeout(timer);
  }
}
