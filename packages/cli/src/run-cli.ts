import { parseArgs } from "node:util";
import type { CliContext } from "./cli-context.ts";
import { doctorCommand } from "./commands/doctor.ts";
import { initCommand } from "./commands/init.ts";
import { startCommand } from "./commands/start.ts";
import { cliVersion } from "./version.ts";

export const USAGE = `Usage: switchboard <command> [options]

Commands:
  start     start Switchboard on the platforms the configuration enables;
            with none, chat with the agents in this terminal (or pipe lines in)
  init      write a commented switchboard.yaml to edit (the built-in defaults)
  doctor    check Node, the configuration, storage, model keys and platform credentials

Options:
  -c, --config <path>   configuration file (default: ./switchboard.yaml; absent: built-in defaults)
  -f, --force           init: overwrite an existing file
  -h, --help            show this help
  -v, --version         show the version

Configuration reference: README.md ("Configuration"); secrets come from the environment
(OPENAI_API_KEY, ANTHROPIC_API_KEY, SWITCHBOARD_DISCORD_TOKEN, …).
`;

const COMMANDS = ["start", "init", "doctor"] as const;
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
  if (extra.length > 0) {
    context.stderr.write(`switchboard: unexpected argument "${extra[0]}" after ${command}\n\n${USAGE}`);
    return 2;
  }
  if (values.force && command !== "init") {
    context.stderr.write(`switchboard: --force only applies to init\n`);
    return 2;
  }
  const common = { config: values.config };
  switch (command) {
    case "start":
      return startCommand(common, context);
    case "init":
      return initCommand({ ...common, force: values.force ?? false }, context);
    case "doctor":
      return doctorCommand(common, context);
  }
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      config: { type: "string", short: "c" },
      force: { type: "boolean", short: "f" },
      help: { type: "boolean", short: "h" },
      version: { type: "boolean", short: "v" },
    },
  });
}

function isCommand(value: string | undefined): value is CommandName {
  return (COMMANDS as readonly (string | undefined)[]).includes(value);
}
