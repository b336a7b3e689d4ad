import * as clack from "@clack/prompts";
import type { Environment } from "../config/env-overrides.ts";

export interface Choice<T extends string> {
  readonly value: T;
  readonly label: string;
  readonly hint?: string;
}

/** The person (or the script) stopped the setup; nothing more is written. */
export class SetupStopped extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SetupStopped";
  }
}

/**
 * How setup gets its answers and shows its steps: asked in the terminal, or — with `--yes` —
 * taken from flags and the environment. Each question has a key that names where a script gives it.
 */
export interface Asker {
  readonly interactive: boolean;
  /** `quiet`: not asked in the terminal (the initial value, unless a flag gives one). */
  text(
    key: string,
    message: string,
    options?: { initial?: string; optional?: boolean; quiet?: boolean },
  ): Promise<string>;
  /** Not echoed; an empty answer means "none" when `optional`. */
  secret(key: string, message: string, options?: { optional?: boolean }): Promise<string>;
  confirm(key: string, message: string, initial: boolean): Promise<boolean>;
  select<T extends string>(
    key: string,
    message: string,
    choices: readonly Choice<T>[],
    initial: T,
  ): Promise<T>;
  multiselect<T extends string>(key: string, message: string, choices: readonly Choice<T>[]): Promise<T[]>;
  /**
   * Runs `work` (a wait on something outside, bounded by its own timeout) while the person may
   * press Enter to skip it: undefined when skipped (the signal told `work` to stop). A script waits
   * only when its answer for `key` is "true"; otherwise the wait is skipped.
   */
  waitOrSkip<T>(
    key: string,
    message: string,
    work: (signal: AbortSignal) => Promise<T>,
  ): Promise<T | undefined>;
  /** A block of text to read or copy (a manifest, a link, the next step). */
  show(title: string, body: string): void;
  ok(line: string): void;
  warn(line: string): void;
  problem(line: string): void;
  begin(title: string): void;
  end(line: string): void;
}

interface Streams {
  readonly input: NodeJS.ReadableStream;
  readonly output: NodeJS.WritableStream;
}

function answered<T>(value: T): Exclude<T, symbol> {
  if (clack.isCancel(value)) throw new SetupStopped("setup cancelled; nothing more was written");
  return value as Exclude<T, symbol>;
}

/**
 * Questions in the terminal, drawn by @clack/prompts. A question a flag already answered
 * (`presets`, by key) is not asked.
 */
export function terminalAsker(
  streams: Streams,
  presets: Readonly<Record<string, string | undefined>> = {},
): Asker {
  const io = { input: streams.input, output: streams.output } as Parameters<typeof clack.text>[0] &
    Parameters<typeof clack.intro>[1];
  const common = { input: io.input, output: io.output };
  return {
    interactive: true,
    async text(key, message, options = {}) {
      const preset = presets[key]?.trim();
      if (preset) return preset;
      if (options.quiet) return options.initial ?? "";
      const value = answered(
        await clack.text({
          ...common,
          message,
          ...(options.initial === undefined ? {} : { initialValue: options.initial }),
          validate: (typed) =>
            options.optional || (typed ?? "").trim() !== "" ? undefined : "an answer is needed here",
        }),
      );
      return (value ?? "").trim();
    },
    async secret(_key, message, options = {}) {
      const value = answered(
        await clack.password({
          ...common,
          message,
          validate: (typed) =>
            options.optional || (typed ?? "").trim() !== "" ? undefined : "an answer is needed here",
        }),
      );
      return (value ?? "").trim();
    },
    async confirm(_key, message, initial) {
      return answered(await clack.confirm({ ...common, message, initialValue: initial }));
    },
    async select(_key, message, choices, initial) {
      return answered(
        await clack.select({
          ...common,
          message,
          initialValue: initial,
          options: choices.map((choice) => ({ ...choice })) as Parameters<typeof clack.select>[0]["options"],
        }),
      ) as (typeof choices)[number]["value"];
    },
    async multiselect(_key, message, choices) {
      return answered(
        await clack.multiselect({
          ...common,
          message,
          required: false,
          options: choices.map((choice) => ({ ...choice })) as Parameters<
            typeof clack.multiselect
          >[0]["options"],
        }),
      ) as (typeof choices)[number]["value"][];
    },
    async waitOrSkip(_key, message, work) {
      const stop = new AbortController();
      const prompt = new AbortController();
      const working = work(stop.signal).finally(() => prompt.abort());
      const typed = await clack.text({
        ...common,
        message,
        placeholder: "press Enter to skip",
        signal: prompt.signal,
      });
      // The prompt was ended by the work finishing (or failing): its result is the answer.
      if (prompt.signal.aborted) return working;
      stop.abort();
      await working.catch(() => undefined);
      answered(typed);
      return undefined;
    },
    show(title, body) {
      clack.note(body, title, { ...common, format: (line) => line });
    },
    ok: (line) => clack.log.success(line, common),
    warn: (line) => clack.log.warn(line, common),
    problem: (line) => clack.log.error(line, common),
    begin: (title) => clack.intro(title, common),
    end: (line) => clack.outro(line, common),
  };
}

/** Where a script gives one answer: a flag, or an environment variable. */
export interface ScriptedAnswers {
  readonly values: Readonly<Record<string, string | undefined>>;
  /** For the message when an answer is missing: `--homeserver or SWITCHBOARD_MATRIX_HOMESERVER`. */
  readonly source: (key: string) => string;
}

/** `--yes`: every answer from flags and the environment; a missing one stops setup and says which. */
export function scriptedAsker(answers: ScriptedAnswers, output: NodeJS.WritableStream): Asker {
  const write = (line: string) => output.write(`${line}\n`);
  const value = (key: string, optional: boolean | undefined): string => {
    const given = answers.values[key]?.trim();
    if (given) return given;
    if (optional) return "";
    throw new SetupStopped(`--yes: give ${answers.source(key)}`);
  };
  return {
    interactive: false,
    async text(key, _message, options = {}) {
      return answers.values[key]?.trim() || options.initial || value(key, options.optional);
    },
    async secret(key, _message, options = {}) {
      return value(key, options.optional);
    },
    async confirm(key, _message, initial) {
      const given = answers.values[key];
      return given === undefined ? initial : given === "true";
    },
    async select(key, _message, choices, initial) {
      const given = answers.values[key]?.trim();
      if (given === undefined || given === "") return initial;
      const choice = choices.find((candidate) => candidate.value === given);
      if (!choice)
        throw new SetupStopped(
          `--yes: ${answers.source(key)} must be one of ${choices.map((c) => c.value).join(", ")} (got ${given})`,
        );
      return choice.value;
    },
    async multiselect(key, _message, choices) {
      const given = (answers.values[key] ?? "")
        .split(",")
        .map((part) => part.trim())
        .filter((part) => part !== "");
      const unknown = given.filter((part) => !choices.some((choice) => choice.value === part));
      if (unknown.length > 0)
        throw new SetupStopped(
          `--yes: ${answers.source(key)} takes ${choices.map((c) => c.value).join(", ")} (got ${unknown.join(", ")})`,
        );
      return choices.filter((choice) => given.includes(choice.value)).map((choice) => choice.value);
    },
    async waitOrSkip(key, _message, work) {
      return answers.values[key] === "true" ? work(new AbortController().signal) : undefined;
    },
    show(title, body) {
      write(`${title}:\n${body}\n`);
    },
    ok: (line) => write(`ok       ${line}`),
    warn: (line) => write(`warning  ${line}`),
    problem: (line) => write(`problem  ${line}`),
    begin: (title) => write(title),
    end: (line) => write(line),
  };
}

/** A secret from the environment (or the env file) when there, else asked for; `--yes` reads the variable. */
export async function secretFromEnvOrAsked(
  asker: Asker,
  env: Environment,
  variable: string,
  message: string,
  options: { optional?: boolean } = {},
): Promise<string> {
  const present = env[variable]?.trim();
  if (present) {
    if (!asker.interactive) return present;
    if (await asker.confirm(`env.${variable}`, `Use ${variable} from the environment?`, true)) return present;
  }
  return asker.secret(variable, message, options);
}
