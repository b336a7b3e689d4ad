import { inspectDiscordBot, privilegedIntents } from "@switchboard/discord/setup";
import { DEFAULT_SLASH_COMMAND } from "@switchboard/slack/setup";
import type { CliContext, CommonOptions } from "../cli-context.ts";
import { reportStartupFailure } from "../commands/startup-failure.ts";
import { envValue } from "../config/env-overrides.ts";
import { loadConfig } from "../config/load-config.ts";
import { type Asker, scriptedAsker, terminalAsker } from "./asker.ts";
import { inviteText } from "./discord-step.ts";
import { registeredCommands } from "./registered-commands.ts";
import { manifestLink, slackManifest } from "./slack-manifest.ts";
import { runSetup } from "./wizard.ts";

/** The flags setup reads (all optional; with --yes they stand in for the questions). */
export interface SetupFlags {
  readonly yes: boolean;
  readonly force: boolean;
  readonly platforms?: string | undefined;
  readonly model?: string | undefined;
  readonly slackMode?: string | undefined;
  readonly slackRequestUrl?: string | undefined;
  readonly slackApiUrl?: string | undefined;
  readonly slackPort?: string | undefined;
  readonly slackVerify?: boolean | undefined;
  readonly discordGuild?: string | undefined;
  readonly discordApiUrl?: string | undefined;
  readonly homeserver?: string | undefined;
  readonly matrixUser?: string | undefined;
  readonly e2ee?: boolean | undefined;
  readonly displayName?: string | undefined;
}

/** Where a script gives each answer, for the message when one is missing. */
const SOURCES: Record<string, string> = {
  platforms: "--platforms slack,discord,matrix",
  "model.provider": "--model (offline, openai:<model>, anthropic:<model>)",
  "slack.mode": "--slack-mode socket|http",
  "slack.requestUrl": "--slack-request-url",
  "matrix.homeserver": "--homeserver or SWITCHBOARD_MATRIX_HOMESERVER",
  "matrix.user": "--matrix-user or SWITCHBOARD_MATRIX_USER",
  SWITCHBOARD_MATRIX_PASSWORD:
    "SWITCHBOARD_MATRIX_PASSWORD (or SWITCHBOARD_MATRIX_ACCESS_TOKEN) in the environment",
};

function scriptedValues(flags: SetupFlags, context: CliContext): Record<string, string | undefined> {
  const env = (name: string) => envValue(context.env, name);
  const model = flags.model ?? env("SWITCHBOARD_MODEL");
  const [provider, ...name] = (model ?? "").split(":");
  return {
    add: "true",
    ...(flags.force ? { "replace.slack": "true", "replace.discord": "true", "replace.matrix": "true" } : {}),
    platforms: flags.platforms ?? "",
    "model.provider": model === undefined ? "keep" : provider,
    "model.name": name.join(":") || undefined,
    "slack.mode": flags.slackMode,
    "slack.requestUrl": flags.slackRequestUrl,
    "slack.apiUrl": flags.slackApiUrl,
    "slack.port": flags.slackPort,
    "slack.verify": String(flags.slackVerify ?? false),
    "discord.apiUrl": flags.discordApiUrl,
    "discord.guild": flags.discordGuild,
    "matrix.homeserver": flags.homeserver ?? env("SWITCHBOARD_MATRIX_HOMESERVER"),
    "matrix.user": flags.matrixUser ?? env("SWITCHBOARD_MATRIX_USER"),
    "matrix.e2ee": String(flags.e2ee ?? false),
    "matrix.displayName": flags.displayName,
    SWITCHBOARD_MATRIX_PASSWORD: env("SWITCHBOARD_MATRIX_PASSWORD"),
  };
}

/** `switchboard setup`: the wizard in a terminal, or `--yes` for scripts. */
export async function setupCommand(
  options: CommonOptions & SetupFlags,
  context: CliContext,
): Promise<number> {
  let asker: Asker;
  if (options.yes) {
    asker = scriptedAsker(
      {
        values: scriptedValues(options, context),
        source: (key) => SOURCES[key] ?? `${key} in the environment`,
      },
      context.stdout,
    );
  } else {
    if (!context.stdin.isTTY || !context.stdout.isTTY) {
      context.stderr.write(
        "switchboard: setup asks its questions in a terminal; in a script use `switchboard setup --yes` with flags and environment variables (see docs/reference/commands.md)\n",
      );
      return 2;
    }
    // Flags answer their questions in the terminal too (an API URL is only ever a flag).
    const { SWITCHBOARD_MATRIX_PASSWORD: _password, ...flagged } = scriptedValues(options, context);
    const presets = Object.fromEntries(
      Object.entries(flagged).filter(
        ([key]) => !["add", "platforms", "model.provider", "matrix.e2ee", "slack.verify"].includes(key),
      ),
    );
    asker = terminalAsker({ input: context.stdin, output: context.stdout }, presets);
  }
  return runSetup(asker, { config: options.config }, { env: context.env, cwd: context.cwd });
}

/** `switchboard manifest slack`: the app manifest (JSON) on stdout, the link that creates the app on stderr. */
export async function manifestCommand(
  options: CommonOptions & Pick<SetupFlags, "slackMode" | "slackRequestUrl">,
  context: CliContext,
): Promise<number> {
  try {
    const loaded = await loadConfig({ path: options.config, cwd: context.cwd, env: context.env });
    const mode = options.slackMode ?? loaded.config.slack?.mode ?? "socket";
    if (mode !== "socket" && mode !== "http") {
      context.stderr.write(`switchboard: --slack-mode is socket or http (got ${mode})\n`);
      return 2;
    }
    if (mode === "http" && options.slackRequestUrl === undefined) {
      context.stderr.write(
        "switchboard: an HTTP-mode manifest needs --slack-request-url https://…/slack/events\n",
      );
      return 2;
    }
    const manifest = slackManifest({
      name: "Switchboard",
      slashCommand: loaded.config.slack?.slashCommand ?? DEFAULT_SLASH_COMMAND,
      commands: await registeredCommands(loaded, context.cwd),
      directMessages: loaded.config.slack?.directMessages ?? true,
      connection:
        mode === "http" && options.slackRequestUrl !== undefined
          ? { mode: "http", requestUrl: options.slackRequestUrl }
          : { mode: "socket" },
    });
    context.stdout.write(`${JSON.stringify(manifest, null, 2)}\n`);
    context.stderr.write(`Create the app from it: ${manifestLink(manifest)}\n`);
    return 0;
  } catch (error) {
    return reportStartupFailure(error, context.stderr);
  }
}

/** `switchboard invite discord`: the bot's invite link, and the privileged intents to switch on. */
export async function inviteCommand(
  options: CommonOptions & { applicationId: string | undefined; discordApiUrl: string | undefined },
  context: CliContext,
): Promise<number> {
  try {
    let applicationId = options.applicationId;
    if (applicationId === undefined) {
      const loaded = await loadConfig({ path: options.config, cwd: context.cwd, env: context.env });
      const token = loaded.config.discord?.token ?? envValue(context.env, "SWITCHBOARD_DISCORD_TOKEN");
      if (token === undefined) {
        context.stderr.write(
          "switchboard: give --application-id <id> (Developer Portal → General Information), or set SWITCHBOARD_DISCORD_TOKEN to look it up\n",
        );
        return 2;
      }
      const apiUrl = options.discordApiUrl ?? loaded.config.discord?.apiUrl ?? "https://discord.com/api";
      applicationId = (await inspectDiscordBot(token, apiUrl)).applicationId;
    }
    if (!/^\d{5,25}$/.test(applicationId)) {
      context.stderr.write(`switchboard: --application-id is digits only (got ${applicationId})\n`);
      return 2;
    }
    context.stdout.write(
      `${inviteText(applicationId)}\nSwitch on in Bot → Privileged Gateway Intents: ${privilegedIntents().join(", ")}\n`,
    );
    return 0;
  } catch (error) {
    return reportStartupFailure(error, context.stderr);
  }
}
