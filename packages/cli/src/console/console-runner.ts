import { clearLine, createInterface, cursorTo, type Interface } from "node:readline";
import type { ConsoleAdapter } from "./console-adapter.ts";

/**
 * Where the console chat is written. Created before the adapter (which prints answers through it)
 * and told about the prompt once the runner has one, so that an answer arriving while the user
 * types is printed above the prompt instead of through the middle of their line.
 */
export class ConsoleOutput {
  readonly #chat: NodeJS.WritableStream;
  readonly #log: NodeJS.WritableStream;
  #prompt: Interface | undefined;

  constructor(chat: NodeJS.WritableStream, log: NodeJS.WritableStream) {
    this.#chat = chat;
    this.#log = log;
  }

  /** One chat line (stdout). */
  readonly print = (text: string): void => {
    this.#aboveThePrompt(this.#chat, `${text}\n`);
  };

  /** One log line (stderr, already ending in a newline); on a terminal it shares the screen with the chat. */
  readonly log = (line: string): void => {
    this.#aboveThePrompt(this.#log, line);
  };

  #aboveThePrompt(stream: NodeJS.WritableStream, text: string): void {
    const prompt = this.#prompt;
    if (!prompt) {
      stream.write(text);
      return;
    }
    clearLine(this.#chat, 0);
    cursorTo(this.#chat, 0);
    stream.write(text);
    prompt.prompt(true);
  }

  attachPrompt(prompt: Interface | undefined): void {
    this.#prompt = prompt;
  }
}

export interface ConsoleRunOptions {
  readonly adapter: ConsoleAdapter;
  /** Resolves when every message sent so far has been answered. */
  readonly idle: () => Promise<void>;
  readonly input: NodeJS.ReadableStream;
  readonly output: ConsoleOutput;
  /** Where the prompt is drawn (the terminal); only used when interactive. */
  readonly terminal: NodeJS.WritableStream;
  /** A person at a terminal: prompt and answers as they come. Otherwise: a script of lines. */
  readonly interactive: boolean;
  /** Aborted on SIGINT/SIGTERM: stop reading at once. */
  readonly signal: AbortSignal;
}

export type ConsoleEnd = "end-of-input" | "quit" | "aborted";

/**
 * Feeds typed lines to the console adapter until end of input, `:quit`, or the signal aborts.
 *
 * Not interactive (stdin is a pipe or a file), each line is answered before the next is read and
 * echoed as `[thread] you> …`, so the output is a readable transcript in input order whatever the
 * mid-run policy. Interactive, lines are sent as typed and answers are printed as they arrive.
 * Either way, everything sent has been answered when this resolves after end of input.
 */
export async function runConsole(options: ConsoleRunOptions): Promise<ConsoleEnd> {
  const { adapter, interactive, output } = options;
  if (options.signal.aborted) return "aborted";
  const lines = createInterface({
    input: options.input,
    ...(interactive ? { output: options.terminal, terminal: true } : { terminal: false }),
  });
  const onAbort = () => lines.close();
  options.signal.addEventListener("abort", onAbort, { once: true });
  let end: ConsoleEnd = "end-of-input";
  try {
    if (interactive) {
      lines.setPrompt(promptFor(adapter));
      output.attachPrompt(lines);
      output.print(BANNER);
      lines.on("SIGINT", () => lines.close());
    }
    for await (const line of lines) {
      if (!interactive && line.trim() !== "") output.print(`[${adapter.place}] you> ${line.trim()}`);
      const sent = await adapter.handleLine(line);
      if (sent === false) {
        end = "quit";
        break;
      }
      if (!interactive && sent !== undefined) await options.idle();
      if (interactive) {
        lines.setPrompt(promptFor(adapter));
        lines.prompt();
      }
    }
  } finally {
    options.signal.removeEventListener("abort", onAbort);
    output.attachPrompt(undefined);
    lines.close();
  }
  if (options.signal.aborted) return "aborted";
  if (interactive) options.terminal.write("\n");
  await options.idle();
  return end;
}

const BANNER =
  "Switchboard console: type to talk to the agents. :help lists console commands (threads, channels), " +
  "/help the bot's commands. Ctrl-D leaves.";

function promptFor(adapter: ConsoleAdapter): string {
  return `[${adapter.place}]> `;
}
