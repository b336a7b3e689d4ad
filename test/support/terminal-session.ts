/**
 * A command run in a real pseudo-terminal, for driving interactive prompts as a person would:
 * util-linux `script` gives the child a pty (so the prompt library sees a TTY, switches to raw
 * mode and draws), and what we write to `script`'s stdin arrives as keystrokes. Chosen over
 * node-pty, which needs a native build. The screen is read as text with the escape codes removed.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { waitFor } from "@switchboard/core/testing";

export const KEY = { enter: "\r", space: " ", down: "\u001b[B", up: "\u001b[A" } as const;

// biome-ignore lint/suspicious/noControlCharactersInRegex: terminal escape sequences are what is removed
const ESCAPES = /\u001b\[[0-9;?]*[A-Za-z]|\u001b[()][A-Z0-9]|\r/g;

export class TerminalSession {
  readonly #child: ChildProcess;
  #screen = "";
  #cursor = 0;
  readonly exited: Promise<number>;

  constructor(command: readonly string[], options: { cwd: string; env: NodeJS.ProcessEnv }) {
    const quoted = command.map((part) => `'${part.replaceAll("'", "'\\''")}'`).join(" ");
    // A pty from /dev/null has no size; the prompts wrap at the width, so give it one.
    this.#child = spawn("script", ["-q", "-e", "-c", `stty cols 200 rows 60; exec ${quoted}`, "/dev/null"], {
      cwd: options.cwd,
      env: options.env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    const append = (chunk: Buffer) => {
      this.#screen += chunk.toString("utf8").replace(ESCAPES, "");
    };
    this.#child.stdout?.on("data", append);
    this.#child.stderr?.on("data", append);
    this.exited = new Promise((resolve) => this.#child.once("exit", (code) => resolve(code ?? -1)));
  }

  /** Everything shown so far, escape codes removed. */
  get screen(): string {
    return this.#screen;
  }

  /** Waits until `text` appears after what was already read, and moves past it. */
  async expect(text: string, timeoutMs = 20_000): Promise<void> {
    const at = await waitFor(
      `"${text}" on the terminal`,
      () => {
        const found = this.#screen.indexOf(text, this.#cursor);
        return found === -1 ? undefined : found;
      },
      timeoutMs,
    ).catch((error: Error) => {
      throw new Error(
        `${error.message}\n--- terminal since the last answer ---\n${this.#screen.slice(this.#cursor)}`,
      );
    });
    this.#cursor = at + text.length;
  }

  /** Keystrokes, as typed. */
  type(keys: string): void {
    this.#child.stdin?.write(keys);
  }

  /** Waits for `question` to be the active prompt (clack marks it ◆), then types the answer. */
  async answer(question: string, keys: string): Promise<void> {
    await this.expect(`◆  ${question}`);
    this.type(keys);
  }

  kill(): void {
    if (this.#child.exitCode === null) this.#child.kill("SIGKILL");
  }
}
