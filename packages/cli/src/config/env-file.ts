/**
 * `switchboard.env`, beside the configuration file: the secrets `switchboard setup` writes, one
 * `NAME=value` per line, readable by its owner only (mode 0600). Every command reads it; a
 * variable set in the real environment wins over the file. Parsed with Node's own `util.parseEnv`
 * (the dotenv format systemd's EnvironmentFile and docker's --env-file read too).
 */
import { chmod, readFile, rename, stat, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { parseEnv } from "node:util";
import type { Environment } from "./env-overrides.ts";
import { DEFAULT_CONFIG_PATH } from "./load-config.ts";

export const ENV_FILE_NAME = "switchboard.env";

/** Owner read and write only: the file holds tokens and API keys. */
export const ENV_FILE_MODE = 0o600;

/** Where the env file of a configuration lives: beside it. */
export function envFilePath(cwd: string, configPath: string | undefined): string {
  return join(dirname(resolve(cwd, configPath ?? DEFAULT_CONFIG_PATH)), ENV_FILE_NAME);
}

/** The variables of the file, or undefined when there is none. */
export async function readEnvFile(path: string): Promise<Record<string, string> | undefined> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  const parsed = parseEnv(text);
  return Object.fromEntries(
    Object.entries(parsed).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}

/** The environment with the file's variables added beneath it (the real environment wins). */
export async function environmentWithFile(env: Environment, path: string): Promise<Environment> {
  const file = await readEnvFile(path);
  return file === undefined ? env : { ...file, ...withoutBlank(env) };
}

function withoutBlank(env: Environment): Environment {
  return Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ""));
}

/** A value as one line of the file: quoted when it holds anything but plain characters. */
function line(name: string, value: string): string {
  if (/[\r\n']/.test(value))
    throw new Error(`${name}: a value with a line break or ' cannot go in ${ENV_FILE_NAME}`);
  return /^[\w@%+=:,./-]*$/.test(value) ? `${name}=${value}` : `${name}='${value}'`;
}

/**
 * Writes the variables (replacing the file): written to a temporary file with mode 0600 first and
 * renamed over, so the secrets are never readable by others, not even for a moment.
 */
export async function writeEnvFile(path: string, variables: Readonly<Record<string, string>>): Promise<void> {
  const text = [
    "# Secrets for switchboard.yaml, written by `switchboard setup`. Keep this file private (mode 600).",
    ...Object.entries(variables).map(([name, value]) => line(name, value)),
    "",
  ].join("\n");
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, text, { mode: ENV_FILE_MODE, flag: "w" });
  await chmod(temporary, ENV_FILE_MODE);
  await rename(temporary, path);
}

/** The permission bits of a file or folder, or undefined when it does not exist. */
export async function modeOf(path: string): Promise<number | undefined> {
  try {
    return (await stat(path)).mode & 0o777;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}
