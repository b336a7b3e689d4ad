/** What one line typed into the console means. */
export type ConsoleAction =
  | { kind: "say"; text: string }
  | { kind: "reply"; to: string; text: string }
  | { kind: "new-thread"; name?: string }
  | { kind: "switch"; place: string }
  | { kind: "list" }
  | { kind: "quit" }
  | { kind: "help" }
  | { kind: "invalid"; problem: string };

export const CONSOLE_HELP = [
  "Console commands (everything else is sent to the bot; /help lists the bot's commands):",
  "  :new [name]        open a new thread and switch to it",
  "  :switch <name>     switch to a thread, or to a simulated group channel with #name",
  "  :threads           list threads opened here",
  "  :reply <id> <text> reply to the bot message shown with [id] (outside threads, like a platform reply)",
  "  :quit              leave (same as Ctrl-D)",
  "In a #channel the bot answers only when you write @bot, and then in a thread of its own.",
].join("\n");

export function parseConsoleLine(line: string): ConsoleAction {
  const trimmed = line.trim();
  if (!trimmed.startsWith(":") || trimmed.startsWith("::"))
    return { kind: "say", text: trimmed.replace(/^::/, ":") };
  const [word = "", ...rest] = trimmed.slice(1).split(/\s+/);
  const args = rest.join(" ");
  switch (word.toLowerCase()) {
    case "new":
      return args ? validName(args, (name) => ({ kind: "new-thread", name })) : { kind: "new-thread" };
    case "switch":
      return args
        ? validName(args, (place) => ({ kind: "switch", place }))
        : { kind: "invalid", problem: "usage: :switch <name>" };
    case "threads":
      return { kind: "list" };
    case "reply": {
      const [to, ...words] = rest;
      return to && words.length > 0
        ? { kind: "reply", to, text: words.join(" ") }
        : { kind: "invalid", problem: "usage: :reply <id> <text>" };
    }
    case "quit":
    case "exit":
      return { kind: "quit" };
    case "help":
      return { kind: "help" };
    default:
      return {
        kind: "invalid",
        problem: `unknown console command :${word} (try :help; start with :: to send text beginning with :)`,
      };
  }
}

function validName(name: string, make: (name: string) => ConsoleAction): ConsoleAction {
  return /^#?[\w.-]{1,64}(\/[\w.-]{1,64})?$/.test(name)
    ? make(name)
    : { kind: "invalid", problem: `"${name}" is not a usable name (letters, digits, . _ -)` };
}
