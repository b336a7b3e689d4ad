import { parseArgs } from "node:util";
import type { CliContext } from "./cli-context.ts";
import { initCommand } from "./commands/init.ts";
import { pairingCommand } from "./commands/pairing.ts";
import { serviceCommand } from "./commands/service.ts";
import { startCommand } from "./commands/start.ts";
import { usageCommand } from "./commands/usage.ts";
import { envFilePath, environmentWithFile } from "./config/env-file.ts";
import { cliVersion } from "./version.ts";

export const USAGE = `Usage: switchboard <command> [options]

Commands:
  setup     guided setup: pick platforms, create the apps, check the tokens live; writes
            switchboard.yaml and switchboard.env (--yes: from flags and the environment)
  start     start Switchboard on the platforms the configuration enables;
            with none, chat with the agents in this terminal (or pipe lines in)
  init      write a commented switchboard.yaml to edit (the built-in defaults)
  doctor    check Node, the configuration, storage, the model (one-token request), the team's
            tools and platform credentials (--fix: repair what it can)
  manifest slack   print the Slack app manifest (JSON) and the link that creates the app
  invite discord   print the Discord bot invite link (scopes, permissions) and intents to switch on
  usage     top conversations, users, agents and models by token cost (--days N, --top N)
  pairing   direct-message pairing: list, approve <code>, revoke <platform> <user>
  service   print a systemd unit that runs start with this configuration (--write <path> to write it)

Options:
  -c, --config <path>   configuration file (default: ./switchboard.yaml; absent: built-in defaults)
  -f, --force           init: overwrite an existing file; setup --yes: replace existing platform sections
  --offline             doctor: do not contact the model provider (keys are still checked)
  --fix                 doctor: repair what it can (data folder, file modes, slash commands)
  -y, --yes             setup: no questions; answers from the flags below and the environment
  --platforms <list>    setup: slack,discord,matrix (any of them)
  --model <model>       setup: offline | openai:<model> | anthropic:<model> (key from the environment)
  --slack-mode <mode>   setup, manifest: socket (default) | http
  --slack-request-url <url>  setup, manifest: HTTP mode's public URL (…/slack/events)
  --slack-api-url <url>      setup: Slack Web API URL (GovSlack)
  --slack-port <port>   setup: HTTP mode's port on this machine (default 3000)
  --slack-verify        setup --yes, doctor: HTTP mode, wait up to 5 minutes for Slack's signed
                        request (paste the Request URL in the app settings, or press Retry next to
                        it) to check the signing secret
  --discord-guild <id>  setup: register slash commands in this server (default: globally)
  --discord-api-url <url>    setup, invite: Discord API URL
  --application-id <id> invite: the Discord application id (else looked up with the bot token)
  --homeserver <url>    setup: Matrix homeserver (or SWITCHBOARD_MATRIX_HOMESERVER)
  --matrix-user <user>  setup: the bot account (or SWITCHBOARD_MATRIX_USER; password from
                        SWITCHBOARD_MATRIX_PASSWORD, used once, never stored)
  --e2ee                setup: turn on Matrix end-to-end encryption
  --display-name <name> setup: the Matrix display name (default Switchboard)
  --role <role>         start, doctor: all (default) | ingress | worker (see docs/how-to/scale-out.md)
  --days <n>            usage: the last n days, today included (default 7)
  --top <n>             usage: rows per table (default 10)
  --write <path>        service: write the unit there (e.g. /etc/systemd/system/switchboard.service)
  --user <name>         service: the account it runs as (default: you; switchboard when you are root)
  --env-file <path>     service: the secrets file it loads (default: /etc/switchboard/switchboard.env)
  -h, --help            show this help
  -v, --version         show the version

Configuration reference: docs/reference/configuration.md in the Switchboard repository; secrets come from the environment
(OPENAI_API_KEY, ANTHROPIC_API_KEY, SWITCHBOARD_DISCORD_TOKEN, …) or switchboard.env beside the configuration file.
`;

const COMMANDS = [
  "start",
  "init",
  "doctor",
  "service",
  "usage",
  "pairing",
  "setup",
  "manifest",
  "invite",
] as const;

/** The one thing `manifest` and `invite` print. */
const TARGETS: Partial<Record<CommandName, string>> = { manifest: "slack", invite: "discord" };

const SETUP_FLAGS = [
  "yes",
  "platforms",
  "model",
  "slack-mode",
  "slack-request-url",
  "slack-api-url",
  "slack-port",
  "slack-verify",
  "discord-guild",
  "discord-api-url",
  "homeserver",
  "matrix-user",
  "e2ee",
  "display-name",
] as const;
type CommandName = (typeof COMMANDS)[number];

/** Parses the arguments and runs one command; resolves with the process exit code. */
export async function runCli(argv: readonly string[], given: CliContext): Promise<number> {
  let context = given;
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    context.stderr.write(`switchboard: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.version) {
    context.stdout.write(`switchboard ${cliVersion()}\n`);
    return 0;
  }
  if (values.help || positionals.length === 0) {
    (values.help ? context.stdout : context.stderr).write(USAGE);
    return values.help ? 0 : 2;
  }
  const [command, ...extra] = positionals;
  if (!isCommand(command)) {
    context.stderr.write(`switchboard: unknown command "${command}"\n\n${USAGE}`);
    return 2;
  }
  const target = TARGETS[command];
  if (target !== undefined && extra[0] !== target) {
    context.stderr.write(`switchboard: ${command} takes "${target}" (switchboard ${command} ${target})\n`);
    return 2;
  }
  const unexpected = target === undefined ? extra[0] : extra[1];
  // `pairing` takes its own arguments (list, approve <code>, revoke <platform> <user>).
  if (unexpected !== undefined && command !== "pairing") {
    context.stderr.write(`switchboard: unexpected argument "${unexpected}" after ${command}\n\n${USAGE}`);
    return 2;
  }
  if (values.force && command !== "init" && command !== "setup") {
    context.stderr.write(`switchboard: --force only applies to init and setup\n`);
    return 2;
  }
  if ((values.offline || values.fix) && command !== "doctor") {
    context.stderr.write(`switchboard: --offline and --fix only apply to doctor\n`);
    return 2;
  }
  const setupFlag = SETUP_FLAGS.find((flag) => values[flag] !== undefined);
  const setupFlagFits =
    command === "setup" ||
    (command === "manifest" && (setupFlag === "slack-mode" || setupFlag === "slack-request-url")) ||
    (command === "invite" && setupFlag === "discord-api-url") ||
    (command === "doctor" && setupFlag === "slack-verify");
  if (setupFlag !== undefined && !setupFlagFits) {
    context.stderr.write(`switchboard: --${setupFlag} does not apply to ${command}\n`);
    return 2;
  }
  if (values["application-id"] !== undefined && command !== "invite") {
    context.stderr.write(`switchboard: --application-id only applies to invite\n`);
    return 2;
  }
  if ((values.days !== undefined || values.top !== undefined) && command !== "usage") {
    context.stderr.write(`switchboard: --days and --top only apply to usage\n`);
    return 2;
  }
  const serviceOnly = (["write", "user", "env-file"] as const).find((flag) => values[flag] !== undefined);
  if (serviceOnly && command !== "service") {
    context.stderr.write(`switchboard: --${serviceOnly} only applies to service\n`);
    return 2;
  }
  if (values.role !== undefined && command !== "start" && command !== "doctor") {
    context.stderr.write(`switchboard: --role only applies to start and doctor\n`);
    return 2;
  }
  // The secrets `setup` wrote, beneath whatever the environment sets.
  context = {
    ...context,
    env: await environmentWithFile(context.env, envFilePath(context.cwd, values.config)),
  };
  const common = { config: values.config, role: values.role };
  switch (command) {
    case "setup":
      // Loaded only here: the setup pieces load every platform library, which `start` must not.
      return (await import("./setup/setup-command.ts")).setupCommand(
        {
          ...common,
          yes: values.yes ?? false,
          force: values.force ?? false,
          platforms: values.platforms,
          model: values.model,
          slackMode: values["slack-mode"],
          slackRequestUrl: values["slack-request-url"],
          slackApiUrl: values["slack-api-url"],
          slackPort: values["slack-port"],
          slackVerify: values["slack-verify"],
          discordGuild: values["discord-guild"],
          discordApiUrl: values["discord-api-url"],
          homeserver: values.homeserver,
          matrixUser: values["matrix-user"],
          e2ee: values.e2ee,
          displayName: values["display-name"],
        },
        context,
      );
    case "manifest":
      return (await import("./setup/setup-command.ts")).manifestCommand(
        { ...common, slackMode: values["slack-mode"], slackRequestUrl: values["slack-request-url"] },
        context,
      );
    case "invite":
      return (await import("./setup/setup-command.ts")).inviteCommand(
        { ...common, applicationId: values["application-id"], discordApiUrl: values["discord-api-url"] },
        context,
      );
    case "start":
      return startCommand(common, context);
    case "init":
      return initCommand({ ...common, force: values.force ?? false }, context);
    case "doctor":
      return (await import("./commands/doctor.ts")).doctorCommand(
        {
          ...common,
          offline: values.offline ?? false,
          fix: values.fix ?? false,
          slackVerify: values["slack-verify"] ?? false,
        },
        context,
      );
    case "usage": {
      const days = positiveInteger(values.days, 7);
      const top = positiveInteger(values.top, 10);
      if (days === undefined || top === undefined || days > 366) {
        context.stderr.write(`switchboard: --days and --top take a whole number (days at most 366)\n`);
        return 2;
      }
      return usageCommand({ ...common, days, top }, context);
    }
    case "pairing":
      return pairingCommand({ ...common, args: extra }, context);
    case "service":
      return serviceCommand(
        { ...common, write: values.write, user: values.user, envFile: values["env-file"] },
        context,
      );
  }
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      config: { type: "string", short: "c" },
      role: { type: "string" },
      force: { type: "boolean", short: "f" },
      offline: { type: "boolean" },
      fix: { type: "boolean" },
      yes: { type: "boolean", short: "y" },
      platforms: { type: "string" },
      model: { type: "string" },
      "slack-mode": { type: "string" },
      "slack-request-url": { type: "string" },
      "slack-api-url": { type: "string" },
      "slack-port": { type: "string" },
      "slack-verify": { type: "boolean" },
      "discord-guild": { type: "string" },
      "discord-api-url": { type: "string" },
      "application-id": { type: "string" },
      homeserver: { type: "string" },
      "matrix-user": { type: "string" },
      e2ee: { type: "boolean" },
      "display-name": { type: "string" },
      write: { type: "string" },
      user: { type: "string" },
      "env-file": { type: "string" },
      help: { type: "boolean", short: "h" },
      version: { type: "boolean", short: "v" },
      days: { type: "string" },
      top: { type: "string" },
    },
  });
}

function isCommand(value: string | undefined): value is CommandName {
  return (COMMANDS as readonly (string | undefined)[]).includes(value);
}

function positiveInteger(value: string | undefined, fallback: number): number | undefined {
  if (value === undefined) return fallback;
  return /^[1-9]\d*$/.test(value) ? Number(value) : undefined;
}
