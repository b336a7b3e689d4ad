import { Client, GatewayIntentBits, Partials } from "discord.js";
import type { DiscordAdapterConfig } from "../config.ts";

/**
 * Guilds (channels, threads), GuildMessages + MessageContent (what people write in servers; the
 * latter is privileged and must be switched on in the Developer Portal), DirectMessages.
 */
export const GATEWAY_INTENTS = [
  GatewayIntentBits.Guilds,
  GatewayIntentBits.GuildMessages,
  GatewayIntentBits.MessageContent,
  GatewayIntentBits.DirectMessages,
] as const;

/** Sent with every message, reply, edit and follow-up: the bot never pings anyone, whatever the text says. */
export const NO_PINGS = { parse: [], repliedUser: false } as const;

export function createDiscordClient(config: DiscordAdapterConfig): Client {
  return new Client({
    intents: [...GATEWAY_INTENTS],
    // DM channels are never announced to bots before their first message; without this partial
    // discord.js drops DMs from channels it has not cached.
    partials: [Partials.Channel],
    rest: { api: config.apiUrl },
    allowedMentions: { ...NO_PINGS, parse: [] },
    // A reply whose origin is gone (deleted, or in another channel) is sent as a plain message.
    failIfNotExists: false,
  });
}
