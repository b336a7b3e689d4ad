import { mkdir, writeFile } from "node:fs/promises";
import { userInfo } from "node:os";
import { dirname, extname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { CliContext, CommonOptions } from "../cli-context.ts";
import { ConfigError, loadConfig } from "../config/load-config.ts";
import { renderSystemdUnit, ServiceUnitError } from "../service/systemd-unit.ts";

export interface ServiceOptions extends CommonOptions {
  /** --write: where to write the unit; undefined prints it. */
  readonly write: string | undefined;
  /** --user: the service account; default the current user, or `switchboard` when that is root. */
  readonly user: string | undefined;
  /** --env-file: the secrets file the unit loads. */
  readonly envFile: string | undefined;
}

export const DEFAULT_ENV_FILE = "/etc/switchboard/switchboard.env";
export const DEFAULT_SERVICE_USER = "switchboard";

/** This CLI's entry point, beside this folder: main.ts in the sources, main.js in the build. */
const ENTRY_POINT = fileURLToPath(
  new URL(`../main${extname(fileURLToPath(import.meta.url))}`, import.meta.url),
);

/**
 * Prints (or writes with --write) a systemd unit that runs `switchboard start` with this
 * configuration, from this folder, with the same Node. The unit alone goes to stdout, so it can
 * be redirected; advice goes to stderr.
 */
export async function serviceCommand(options: ServiceOptions, context: CliContext): Promise<number> {
  let unit: string;
  let user: string;
  try {
    const loaded = await loadConfig({ path: options.config, cwd: context.cwd, env: context.env });
    user = options.user ?? defaultUser();
    unit = renderSystemdUnit({
      user,
      workingDirectory: context.cwd,
      command: [
        process.execPath,
        "--disable-warning=ExperimentalWarning",
        ENTRY_POINT,
        "start",
        // Without a file start runs on the built-in defaults, and so does the service.
        ...(loaded.fileExists ? ["--config", loaded.filePath] : []),
      ],
      environmentFile: resolve(context.cwd, options.envFile ?? DEFAULT_ENV_FILE),
      lockTtlSeconds: loaded.config.engine.lockTtlSeconds,
    });
  } catch (error) {
    if (error instanceof ConfigError) {
      context.stderr.write(
        `switchboard: the configuration is not valid:\n${error.problems.map((p) => `  ${p}\n`).join("")}`,
      );
      return 2;
    }
    if (error instanceof ServiceUnitError) {
      context.stderr.write(`switchboard: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
  if (options.write === undefined) {
    context.stdout.write(unit);
    return 0;
  }
  const target = resolve(context.cwd, options.write);
  await mkdir(dirname(target), { recursive: true });
  await writeFile(target, unit, { mode: 0o644 });
  const name = target.split("/").at(-1) ?? "switchboard.service";
  const envFile = resolve(context.cwd, options.envFile ?? DEFAULT_ENV_FILE);
  context.stdout.write(`wrote ${target}\n`);
  context.stderr.write(
    [
      "Next:",
      ...(user === DEFAULT_SERVICE_USER && options.user === undefined
        ? [
            `  useradd --system --home-dir ${context.cwd} ${user}   # the service account, if it does not exist`,
          ]
        : []),
      `  chown -R ${user} ${context.cwd}   # it writes its data (./data) there`,
      `  install -m 600 -o ${user} /dev/null ${envFile}   # then put the secrets in it, VAR=value per line`,
      `  systemctl daemon-reload && systemctl enable --now ${name}`,
      "",
    ].join("\n"),
  );
  return 0;
}

/** The current user, unless that is root: the service needs no privileges, so it gets an account of its own. */
function defaultUser(): string {
  const current = userInfo().username;
  return current === "root" ? DEFAULT_SERVICE_USER : current;
}
