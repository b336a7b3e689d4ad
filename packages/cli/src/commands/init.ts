import { mkdir, writeFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import type { CliContext, CommonOptions } from "../cli-context.ts";
import { readExampleConfig } from "../config/example-config.ts";
import { DEFAULT_CONFIG_PATH } from "../config/load-config.ts";

export interface InitOptions extends CommonOptions {
  readonly force: boolean;
}

/** Writes the commented example configuration; an existing file is kept unless --force. */
export async function initCommand(options: InitOptions, context: CliContext): Promise<number> {
  const label = options.config ?? DEFAULT_CONFIG_PATH;
  const target = resolve(context.cwd, label);
  const template = await readExampleConfig();
  await mkdir(dirname(target), { recursive: true });
  try {
    // "wx" fails if the file exists, with no window between a check and the write.
    await writeFile(target, template, { flag: options.force ? "w" : "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    context.stderr.write(
      `switchboard: ${label} already exists; left it unchanged (use --force to overwrite it)\n`,
    );
    return 1;
  }
  const configFlag = options.config === undefined ? "" : ` --config ${label}`;
  context.stdout.write(
    `wrote ${label}: the offline model, embedded SQLite and a supervisor with billing, tech_support and scheduling.\n` +
      `Edit it, check it with \`switchboard doctor${configFlag}\`, then \`switchboard start${configFlag}\`.\n`,
  );
  return 0;
}
