import { chmod, mkdir } from "node:fs/promises";
import { dirname, relative } from "node:path";
import { parseStoreUrl } from "@switchboard/core/config";
import { ENV_FILE_MODE, envFilePath, modeOf } from "../config/env-file.ts";
import type { LoadedConfig } from "../config/load-config.ts";
import { registeredCommands } from "../setup/registered-commands.ts";
import type { CheckResult } from "./doctor-result.ts";

/** The data folder holds every conversation: its owner only. */
const DATA_FOLDER_MODE = 0o700;

const octal = (mode: number) => mode.toString(8).padStart(3, "0");

/**
 * The env file's and the data folder's modes, and whether the data folder exists. With `fix`, the
 * folder is created and the modes tightened; the result says what was done.
 */
export async function checkFiles(
  loaded: LoadedConfig,
  cwd: string,
  configPath: string | undefined,
  fix: boolean,
): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  const envPath = envFilePath(cwd, configPath);
  const envLabel = relative(cwd, envPath) || envPath;
  const envMode = await modeOf(envPath);
  if (envMode !== undefined) {
    if ((envMode & 0o077) === 0) {
      results.push({
        name: "files",
        status: "ok",
        detail: `${envLabel} is private (mode ${octal(envMode)})`,
      });
    } else if (fix) {
      await chmod(envPath, ENV_FILE_MODE);
      results.push({
        name: "files",
        status: "ok",
        detail: `fixed: ${envLabel} was mode ${octal(envMode)}, now ${octal(ENV_FILE_MODE)}`,
      });
    } else {
      results.push({
        name: "files",
        status: "problem",
        detail: `${envLabel} holds secrets but others may read it (mode ${octal(envMode)})`,
        fix: `chmod 600 ${envLabel} (or switchboard doctor --fix)`,
      });
    }
  }
  const folders = new Set<string>();
  for (const url of [loaded.config.store, loaded.config.checkpoints]) {
    if (!/^sqlite:/i.test(url)) continue;
    const location = parseStoreUrl(url, cwd);
    if (location.kind === "sqlite" && location.path !== ":memory:") folders.add(dirname(location.path));
  }
  for (const folder of folders) {
    const label = relative(cwd, folder) || ".";
    const mode = await modeOf(folder);
    if (mode === undefined) {
      if (fix) {
        await mkdir(folder, { recursive: true, mode: DATA_FOLDER_MODE });
        results.push({ name: "files", status: "ok", detail: `fixed: created the data folder ${label}` });
      } else
        results.push({
          name: "files",
          status: "ok",
          detail: `the data folder ${label} does not exist yet: start creates it (doctor --fix now)`,
        });
    } else if ((mode & 0o007) !== 0 && label !== ".") {
      if (fix) {
        await chmod(folder, DATA_FOLDER_MODE);
        results.push({
          name: "files",
          status: "ok",
          detail: `fixed: the data folder ${label} was mode ${octal(mode)}, now ${octal(DATA_FOLDER_MODE)}`,
        });
      } else
        results.push({
          name: "files",
          status: "warning",
          detail: `everyone on this machine may read the data folder ${label} (mode ${octal(mode)}): conversations are in it`,
          fix: `chmod 700 ${label} (or switchboard doctor --fix)`,
        });
    } else
      results.push({ name: "files", status: "ok", detail: `data folder ${label} (mode ${octal(mode)})` });
  }
  return results;
}

/**
 * Discord's slash commands where the configuration registers them: each chat command the engine has
 * must be there. With `fix`, the set is registered again (what start does, without starting).
 */
export async function checkDiscordCommands(
  loaded: LoadedConfig,
  cwd: string,
  fix: boolean,
): Promise<CheckResult[]> {
  const discord = loaded.config.discord;
  if (discord === undefined) return [];
  const places = { guildIds: discord.commandGuildIds, global: discord.globalCommands };
  if (places.guildIds.length === 0 && !places.global) return [];
  const setup = await import("@switchboard/discord/setup");
  try {
    const { applicationId } = await setup.inspectDiscordBot(discord.token, discord.apiUrl);
    const commands = await registeredCommands(loaded, cwd);
    const found = await setup.missingSlashCommands(
      discord.token,
      discord.apiUrl,
      applicationId,
      places,
      commands,
    );
    const missing = found.filter((place) => place.missing.length > 0);
    if (missing.length === 0)
      return [{ name: "discord", status: "ok", detail: `slash commands registered (${commands.length})` }];
    const what = missing
      .map((place) => `${setup.describeCommandScope(place.guildId)} lacks /${place.missing.join(", /")}`)
      .join("; ");
    if (!fix)
      return [
        {
          name: "discord",
          status: "problem",
          detail: `slash commands missing: ${what}`,
          fix: "switchboard doctor --fix registers them (start does too)",
        },
      ];
    const count = await setup.registerSlashCommandsOverRest(
      discord.token,
      discord.apiUrl,
      applicationId,
      places,
      commands,
    );
    return [{ name: "discord", status: "ok", detail: `fixed: registered ${count} slash commands (${what})` }];
  } catch (error) {
    return [{ name: "discord", status: "problem", detail: `slash commands: ${(error as Error).message}` }];
  }
}

/** What --fix leaves alone, said once, so nobody expects it to. */
export function notFixed(loaded: LoadedConfig): CheckResult[] {
  return loaded.config.matrix?.encryption?.enabled === true
    ? [
        {
          name: "matrix",
          status: "skipped",
          detail:
            "--fix does not re-upload Matrix device keys: start uploads any that are missing when it connects; a device whose keys on the homeserver differ from the store needs a new login (switchboard setup)",
        },
      ]
    : [];
}
