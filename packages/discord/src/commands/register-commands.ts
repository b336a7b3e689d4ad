import type { Logger } from "@switchboard/core/adapter";
import { type Client, DiscordAPIError, RESTJSONErrorCodes } from "discord.js";
import { type SlashCommand, slashCommandBodies } from "./slash-commands.ts";

export interface CommandRegistration {
  readonly commandGuildIds: readonly string[];
  readonly globalCommands: boolean;
}

function explain(error: unknown, scope: string): string {
  if (error instanceof DiscordAPIError && error.code === RESTJSONErrorCodes.MissingAccess) {
    return `Discord refused to register slash commands in ${scope}: invite the bot with the applications.commands scope (see the Discord adapter README)`;
  }
  return `could not register slash commands in ${scope}`;
}

/**
 * Overwrites the bot's slash commands in each configured server (instant) and, when asked,
 * globally. A failure is logged with what to do and does not stop the bot: chat still works.
 */
export async function registerSlashCommands(
  client: Client<true>,
  registration: CommandRegistration,
  logger: Logger,
  commands?: readonly SlashCommand[],
) {
  const bodies = slashCommandBodies(commands);
  const scopes: (string | undefined)[] = [
    ...registration.commandGuildIds,
    ...(registration.globalCommands ? [undefined] : []),
  ];
  for (const guildId of scopes) {
    const scope = guildId === undefined ? "all servers (global)" : `server ${guildId}`;
    try {
      if (guildId === undefined) await client.application.commands.set(bodies);
      else await client.application.commands.set(bodies, guildId);
      logger.info("slash commands registered", { scope, commands: bodies.length });
    } catch (error) {
      logger.error(explain(error, scope), { error });
    }
  }
  if (scopes.length === 0)
    logger.info("slash commands not registered (set discord.commandGuildIds or discord.globalCommands)");
}
