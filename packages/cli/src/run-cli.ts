import { parseArgs } from "node:util";
import type { CliContext } from "./cli-context.ts";
import { doctorCommand } from "./commands/doctor.ts";
import { initCommand } from "./commands/init.ts";
import { pairingCommand } from "./commands/pairing.ts";
import { serviceCommand } from "./commands/service.ts";
import { startCommand } from "./commands/start.ts";
import { usageCommand } from "./commands/usage.ts";
import { cliVersion } from "./version.ts";

export const USAGE = `Usage: switchboard <command> [options]

Commands:
  start     start Switchboard on the platforms the configuration enables;
            with none, chat with the agents in this terminal (or pipe lines in)
  init      write a commented switchboard.yaml to edit (the built-in defaults)
  doctor    check Node, the configuration, storage, the model (one-token request), the team's
            tools and platform credentials
  usage     top conversations, users, agents and models by token cost (--days N, --top N)
  pairing   direct-message pairing: list, approve <code>, revoke <platform> <user>
  service   print a systemd unit that runs start with this configuration (--write <path> to write it)

Options:
  -c, --config <path>   configuration file (default: ./switchboard.yaml; absent: built-in defaults)
  -f, --force           init: overwrite an existing file
  --offline             doctor: do not contact the model provider (keys are still checked)
  --role <role>         start, doctor: all (default) | ingress | worker (see docs/how-to/scale-out.md)
  --days <n>            usage: the last n days, today included (default 7)
  --top <n>             usage: rows per table (default 10)
  --write <path>        service: write the unit there (e.g. /etc/systemd/system/switchboard.service)
  --user <name>         service: the account it runs as (default: you; switchboard when you are root)
  --env-file <path>     service: the secrets file it loads (default: /etc/switchboard/switchboard.env)
  -h, --help            show this help
  -v, --version         show the version

Configuration reference: docs/reference/configuration.md in the Switchboard repository; secrets come from the environment
(OPENAI_API_KEY, ANTHROPIC_API_KEY, SWITCHBOARD_DISCORD_TOKEN, …).
`;

const COMMANDS = ["start", "init", "doctor", "service", "usage", "pairing"] as const;
type CommandName = (typeof COMMANDS)[number];

/** Parses the arguments and runs one command; resolves with the process exit code. */
export async function runCli(argv: readonly string[], context: CliContext): Promise<number> {
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
  if (extra.length > 0 && command !== "pairing") {
    context.stderr.write(`switchboard: unexpected argument "${extra[0]}" after ${command}\n\n${USAGE}`);
    return 2;
  }
  if (values.force && command !== "init") {
    context.stderr.write(`switchboard: --force only applies to init\n`);
    return 2;
  }
  if (values.offline && command !== "doctor") {
    context.stderr.write(`switchboard: --offline only applies to doctor\n`);
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
  const common = { config: values.config, role: values.role };
  switch (command) {
    case "start":
      return startCommand(common, context);
    case "init":
      return initCommand({ ...common, force: values.force ?? false }, context);
    case "doctor":
      return doctorCommand({ ...common, offline: values.offline ?? false }, context);
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
