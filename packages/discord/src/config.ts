import { streamingConfigFields } from "@switchboard/core";
import { z } from "zod";

/** Discord's own hard limit on one message's content. */
export const DISCORD_MESSAGE_LIMIT = 2000;

const snowflake = z.string().regex(/^\d{5,25}$/, "must be a Discord id (a snowflake: digits only)");

/**
 * `discord:` in switchboard.yaml. The CLI fills `token` from SWITCHBOARD_DISCORD_TOKEN when it is
 * not written in the file.
 */
export const discordAdapterConfigSchema = z.object({
  /** Bot token from the Developer Portal (Bot → Reset Token). */
  token: z.string().min(1, "the Discord bot token is empty"),
  /** A mention in a channel opens a thread on that message; off: answer inline as replies in the channel. */
  autoThread: z.boolean().default(true),
  /** Minutes of inactivity after which Discord archives a thread the bot opened. */
  threadAutoArchiveMinutes: z
    .union([z.literal(60), z.literal(1440), z.literal(4320), z.literal(10080)])
    .default(1440),
  /** Only these servers are served (empty: every server the bot is in). */
  guildIds: z.array(snowflake).default([]),
  /** Only these channels (and threads under them) are served (empty: every channel the bot can read). */
  channelIds: z.array(snowflake).default([]),
  /** Answer direct messages. */
  directMessages: z.boolean().default(true),
  /** Register the slash commands in these servers at start-up (instant; for development). */
  commandGuildIds: z.array(snowflake).default([]),
  /** Register the slash commands globally at start-up (every server and DMs; Discord may take a while to show them). */
  globalCommands: z.boolean().default(false),
  /**
   * Longest markdown chunk the engine hands over. Below Discord's 2,000 so that table rewriting
   * (and a reopened code fence) still fits in one message.
   */
  maxMessageLength: z.number().int().min(200).max(DISCORD_MESSAGE_LIMIT).default(1900),
  /** How often the typing indicator is renewed while an answer is worked on (Discord shows it ~10 s). */
  typingIntervalMs: z.number().int().min(1000).max(9500).default(8000),
  /**
   * `streaming`, `streamEditIntervalMs`, `progress`: answers grow by edits, at most one change per
   * interval — Discord allows about 5 message edits per 5 s in a channel.
   */
  ...streamingConfigFields(1_250),
  /** Base URL of the REST API, without the version; the gateway URL is discovered from it. */
  apiUrl: z.url().default("https://discord.com/api"),
});

export type DiscordAdapterConfig = z.output<typeof discordAdapterConfigSchema>;
/** What a caller may pass: every option with a default may be left out. */
export type DiscordAdapterConfigInput = z.input<typeof discordAdapterConfigSchema>;
