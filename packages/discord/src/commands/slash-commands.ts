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
];

export function findSlashCommand(name: string): SlashCommand | undefined {
  return SLASH_COMMANDS.find((command) => command.name === name);
}

/** The registration bodies (PUT …/commands overwrites the whole set, so registering is idempotent). */
export function slashCommandBodies(): RESTPostAPIChatInputApplicationCommandsJSONBody[] {
  return SLASH_COMMANDS.map((command) => ({
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
  return `interaction-${interactionId}`;
}
