import type { Command } from "./command.ts";

/** The commands known to one engine; features contribute theirs (team, memory, requests…). */
export class CommandRegistry {
  readonly #commands = new Map<string, Command>();

  constructor(commands: Iterable<Command> = []) {
    for (const command of commands) this.add(command);
  }

  add(command: Command): void {
    if (this.#commands.has(command.name)) throw new Error(`command /${command.name} is registered twice`);
    this.#commands.set(command.name, command);
  }

  get(name: string): Command | undefined {
    return this.#commands.get(name);
  }

  list(): Command[] {
    return [...this.#commands.values()];
  }

  /** The /help text: one line per command, the same on every platform. */
  helpText(prefix: string): string {
    const lines = this.list().map(
      (command) =>
        `- \`${prefix}${command.name}${command.usage ? ` ${command.usage}` : ""}\` — ${command.summary}`,
    );
    return ["Commands:", ...lines].join("\n");
  }
}
