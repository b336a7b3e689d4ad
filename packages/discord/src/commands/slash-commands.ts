import type { CommandSummary } from "@switchboard/core/adapter";
import {
  ApplicationCommandOptionType,
  type RESTPostAPIChatInputApplicationCommandsJSONBody,
} from "discord.js";

/** A Discord slash command that stands for one core chat command of the same name. */
export interface SlashCommand {
  readonly name: string;
  readonly description: string;
  /** Answered only to the person who used it: lists and status are not conversation content. */
  readonly ephemeral: boolean;
  /** The free-text argument appended after the command word, if the command takes one. */
  readonly argument?: { readonly name: string; readonly description: string };
}

export const SLASH_COMMANDS: readonly SlashCommand[] = [
  {
    name: "supervisor",
    description: "Hand this conversation back to the supervisor, optionally with a message for it",
    ephemeral: false,
    argument: { name: "message", description: "What to ask the supervisor right away" },
  },
  { name: "reset", description: "Start this conversation over with the supervisor", ephemeral: false },
  { name: "agents", description: "List the agents on the team", ephemeral: true },
  { name: "status", description: "Show which agent is handling this conversation", ephemeral: true },
  { name: "stop", description: "Cancel the answer being worked on in this conversation", ephemeral: false },
  { name: "help", description: "List the commands", ephemeral: true },
  { name: "approve", description: "Let the action waiting for your approval run", ephemeral: false },
  { name: "deny", description: "Refuse the action waiting for your approval", ephemeral: false },
  { name: "memory", description: "Show what the bot remembers about this conversation", ephemeral: true },
  {
    name: "forget",
    description: "Delete one learning (its id from /learnings), or what the bot remembers here (asks first)",
    ephemeral: false,
    argument: {
      name: "what",
      description: "A learning's id, or confirm to delete this conversation's memory",
    },
  },
  {
    name: "usage",
    description: "Show the model calls, tokens and cost of this conversation",
    ephemeral: true,
    argument: { name: "all", description: "Write all for the whole workspace today (admins)" },
  },
];

/** Discord's limits on a command's description and option name. */
const DESCRIPTION_LIMIT = 100;
const OPTION_NAME = /^[a-z0-9_-]{1,32}$/;

/**
 * The slash commands to register: the core commands above, plus one for every other command the
 * engine has registered (made from its own summary) — so a chat command added later still gets
 * its slash form.
 */
export function slashCommandsFor(commands: readonly CommandSummary[]): SlashCommand[] {
  const extra = commands
    .filter((command) => !SLASH_COMMANDS.some((written) => written.name === command.name))
    .map(generatedSlashCommand);
  return [...SLASH_COMMANDS, ...extra];
}

function clip(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}

function generatedSlashCommand(command: CommandSummary): SlashCommand {
  const summary = command.summary.charAt(0).toUpperCase() + command.summary.slice(1);
  const description =
    summary.length <= DESCRIPTION_LIMIT ? summary : `${summary.slice(0, DESCRIPTION_LIMIT - 1)}…`;
  const optionName = command.usage
    ?.replace(/[[\]<>]/g, "")
    .trim()
    .toLowerCase();
  // A usage that is one word names the option; a longer one (`pause <id> | steer <id> <guidance>`)
  // becomes a free-text option that says what it takes.
  const argument =
    optionName === undefined || optionName === ""
      ? undefined
      : OPTION_NAME.test(optionName)
        ? { name: optionName, description: `${optionName} for /${command.name}` }
        : { name: "text", description: clip(`${command.usage ?? ""}`.trim(), DESCRIPTION_LIMIT) };
  return { name: command.name, description, ephemeral: false, ...(argument ? { argument } : {}) };
}

export function findSlashCommand(
  name: string,
  commands: readonly SlashCommand[] = SLASH_COMMANDS,
): SlashCommand | undefined {
  return commands.find((command) => command.name === name);
}

/** The registration bodies (PUT …/commands overwrites the whole set, so registering is idempotent). */
export function slashCommandBodies(
  commands: readonly SlashCommand[] = SLASH_COMMANDS,
): RESTPostAPIChatInputApplicationCommandsJSONBody[] {
  return commands.map((command) => ({
    name: command.name,
    description: command.description,
    ...(command.argument
      ? {
          options: [
            {
              type: ApplicationCommandOptionType.String,
              name: command.argument.name,
              description: command.argument.description,
              required: false,
            },
          ],
        }
      : {}),
  }));
}

/** The chat text the core command parser reads: `/supervisor show me my invoices`. */
export function commandText(command: SlashCommand, argument: string | null | undefined): string {
  const rest = argument?.trim() ?? "";
  return rest === "" ? `/${command.name}` : `/${command.name} ${rest}`;
}

/** Interactions are not messages; this id stands for the interaction in dedupe and reply routing. */
export function interactionMessageId(interactionId: string): string {
  return `${INTERACTION_MESSAGE_PREFIX}${interactionId}`;
}

const INTERACTION_MESSAGE_PREFIX = "interaction-";

/** Whether a message id stands for a slash command's interaction (see interactionMessageId). */
export function isInteractionMessageId(id: string | undefined): id is string {
  return id?.startsWith(INTERACTION_MESSAGE_PREFIX) === true;
}
