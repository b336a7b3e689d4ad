/**
 * What an operator's setup needs from the Discord adapter without a gateway session: the invite
 * link with exactly the scopes and permissions the bot uses, the privileged intents to switch on,
 * the live token and intent check, and slash-command registration over REST. A subpath of its
 * own, so the package root stays cheap to load; discord.js is loaded here.
 */
import type { CommandSummary } from "@switchboard/core/adapter";
import {
  type APIApplication,
  type APIApplicationCommand,
  type APIUser,
  ApplicationFlags,
  GatewayIntentBits,
  PermissionFlagsBits,
  REST,
  Routes,
} from "discord.js";
import { slashCommandBodies, slashCommandsFor } from "./commands/slash-commands.ts";
import { GATEWAY_INTENTS } from "./connect/client.ts";
import { explainStartupError } from "./connect/startup-errors.ts";

export { DiscordStartupError, type StartupFailure } from "./connect/startup-errors.ts";

/** The permissions the bot asks for when invited, each with what it is for. */
export const BOT_PERMISSIONS: readonly {
  readonly name: keyof typeof PermissionFlagsBits;
  readonly why: string;
}[] = [
  { name: "ViewChannel", why: "see the channels it should serve" },
  { name: "SendMessages", why: "answer in channels and DMs" },
  { name: "ReadMessageHistory", why: "reply to a message (Discord requires it for replies)" },
  { name: "CreatePublicThreads", why: "start a thread on the message that mentioned it (autoThread)" },
  { name: "SendMessagesInThreads", why: "answer inside threads" },
  { name: "AttachFiles", why: "send the files the team makes" },
];

/** The OAuth2 scopes of the invite: the bot user and its slash commands. */
export const INVITE_SCOPES = ["bot", "applications.commands"] as const;

/** The permission integer of the invite: the named permissions above, or'ed together. */
export function botPermissions(): bigint {
  return BOT_PERMISSIONS.reduce((sum, { name }) => sum | PermissionFlagsBits[name], 0n);
}

/** The link that adds the bot to a server with exactly those scopes and permissions. */
export function discordInviteUrl(applicationId: string): string {
  const query = new URLSearchParams({
    client_id: applicationId,
    scope: INVITE_SCOPES.join(" "),
    permissions: botPermissions().toString(),
  });
  return `https://discord.com/oauth2/authorize?${query}`;
}

const PRIVILEGED: ReadonlyMap<GatewayIntentBits, string> = new Map([
  [GatewayIntentBits.MessageContent, "MESSAGE CONTENT INTENT"],
  [GatewayIntentBits.GuildMembers, "SERVER MEMBERS INTENT"],
  [GatewayIntentBits.GuildPresences, "PRESENCE INTENT"],
]);

/** The privileged intents among those the bot connects with, as the Developer Portal names them. */
export function privilegedIntents(): string[] {
  return GATEWAY_INTENTS.flatMap((intent) => {
    const name = PRIVILEGED.get(intent);
    return name === undefined ? [] : [name];
  });
}

const MESSAGE_CONTENT_FLAGS =
  ApplicationFlags.GatewayMessageContent | ApplicationFlags.GatewayMessageContentLimited;

/** Who the token belongs to, from `/users/@me` and `/applications/@me`. */
export interface DiscordBotFacts {
  /** The bot user's id. */
  readonly botId: string;
  /** The bot user's name. */
  readonly botName: string;
  /** The application's id: the invite link's `client_id`. */
  readonly applicationId: string;
  /** The application's name in the Developer Portal. */
  readonly applicationName: string;
  /** Whether the Message Content intent is switched on (the application's flags). */
  readonly messageContent: boolean;
}

/**
 * `/users/@me` (the token is a bot's) and `/applications/@me` (its id, and whether the Message
 * Content intent is on). A rejected token or an unreachable API throws {@link DiscordStartupError}.
 */
export async function inspectDiscordBot(token: string, apiUrl: string): Promise<DiscordBotFacts> {
  const rest = new REST({ api: apiUrl, retries: 0 }).setToken(token);
  try {
    const user = (await rest.get(Routes.user())) as APIUser;
    const application = (await rest.get(Routes.currentApplication())) as APIApplication;
    return {
      botId: user.id,
      botName: user.username,
      applicationId: application.id,
      applicationName: application.name,
      messageContent: ((application.flags ?? 0) & MESSAGE_CONTENT_FLAGS) !== 0,
    };
  } catch (error) {
    throw explainStartupError(error, { apiUrl });
  }
}

/** Where slash commands are registered (as `commandGuildIds` and `globalCommands` say). */
export interface CommandPlaces {
  /** Servers that get them at once. */
  readonly guildIds: readonly string[];
  /** Every server and DMs (Discord may take a while to show them). */
  readonly global: boolean;
}

function scopesOf(places: CommandPlaces): (string | undefined)[] {
  return [...places.guildIds, ...(places.global ? [undefined] : [])];
}

/** Where the slash commands go, in words: `server 123`, `all servers (global)`. */
export function describeCommandScope(guildId: string | undefined): string {
  return guildId === undefined ? "all servers (global)" : `server ${guildId}`;
}

/**
 * The slash commands (one per chat command the engine has) that are not registered in each
 * place: the names per scope, empty when all are there.
 */
export async function missingSlashCommands(
  token: string,
  apiUrl: string,
  applicationId: string,
  places: CommandPlaces,
  commands: readonly CommandSummary[],
): Promise<{ guildId: string | undefined; missing: string[] }[]> {
  const rest = new REST({ api: apiUrl, retries: 0 }).setToken(token);
  const wanted = slashCommandsFor(commands).map((command) => command.name);
  const result: { guildId: string | undefined; missing: string[] }[] = [];
  for (const guildId of scopesOf(places)) {
    const route =
      guildId === undefined
        ? Routes.applicationCommands(applicationId)
        : Routes.applicationGuildCommands(applicationId, guildId);
    const registered = new Set(((await rest.get(route)) as APIApplicationCommand[]).map((c) => c.name));
    result.push({ guildId, missing: wanted.filter((name) => !registered.has(name)) });
  }
  return result;
}

/**
 * Overwrites the bot's slash commands in each server named (instant) and, when asked, globally —
 * what the adapter does at start-up, over REST. Returns how many commands each place got.
 */
export async function registerSlashCommandsOverRest(
  token: string,
  apiUrl: string,
  applicationId: string,
  places: CommandPlaces,
  commands: readonly CommandSummary[],
): Promise<number> {
  const rest = new REST({ api: apiUrl, retries: 0 }).setToken(token);
  const bodies = slashCommandBodies(slashCommandsFor(commands));
  for (const guildId of scopesOf(places)) {
    const route =
      guildId === undefined
        ? Routes.applicationCommands(applicationId)
        : Routes.applicationGuildCommands(applicationId, guildId);
    try {
      await rest.put(route, { body: bodies });
    } catch (error) {
      throw new Error(
        `could not register the slash commands in ${describeCommandScope(guildId)} (${(error as Error).message}): invite the bot with the applications.commands scope`,
        { cause: error },
      );
    }
  }
  return bodies.length;
}
