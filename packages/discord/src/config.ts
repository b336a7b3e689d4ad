import { streamingConfigFields } from "@switchboard/core/adapter";
import { z } from "zod";

/** Discord's own hard limit on one message's content. */
export const DISCORD_MESSAGE_LIMIT = 2000;

const snowflake = z.string().regex(/^\d{5,25}$/, "must be a Discord id (a snowflake: digits only)");

/**
 * `discord:` in switchboard.yaml. The CLI fills `token` from SWITCHBOARD_DISCORD_TOKEN when it is
 * not written in the file.
 */
export const discordAdapterConfigSchema = z.object({
  token: z
    .string()
    .min(1, "the Discord bot token is empty")
    .describe("Bot token from the Developer Portal (Bot → Reset Token)."),
  autoThread: z
    .boolean()
    .default(true)
    .describe(
      "A mention in a channel opens a thread on that message; off: answer inline as replies in the channel.",
    ),
  threadAutoArchiveMinutes: z
    .union([z.literal(60), z.literal(1440), z.literal(4320), z.literal(10080)])
    .default(1440)
    .describe("Minutes of inactivity after which Discord archives a thread the bot opened."),
  guildIds: z
    .array(snowflake)
    .default([])
    .describe("Only these servers are served (empty: every server the bot is in)."),
  channelIds: z
    .array(snowflake)
    .default([])
    .describe(
      "Only these channels (and threads under them) are served (empty: every channel the bot can read).",
    ),
  directMessages: z.boolean().default(true).describe("Answer direct messages."),
  commandGuildIds: z
    .array(snowflake)
    .default([])
    .describe("Register the slash commands in these servers at start-up (instant; for development)."),
  globalCommands: z
    .boolean()
    .default(false)
    .describe(
      "Register the slash commands globally at start-up (every server and DMs; Discord may take a while to show them).",
    ),
  maxMessageLength: z
    .number()
    .int()
    .min(200)
    .max(DISCORD_MESSAGE_LIMIT)
    .default(1900)
    .describe(
      "Longest markdown chunk the engine hands over. Below Discord's 2,000 so that table rewriting (and a reopened code fence) still fits in one message.",
    ),
  typingIntervalMs: z
    .number()
    .int()
    .min(1000)
    .max(9500)
    .default(8000)
    .describe(
      "How often the typing indicator is renewed while an answer is worked on (Discord shows it ~10 s).",
    ),
  /**
   * `streaming`, `streamEditIntervalMs`, `progress`: answers grow by edits, at most one change per
   * interval — Discord allows about 5 message edits per 5 s in a channel.
   */
  ...streamingConfigFields(1_250),
  apiUrl: z
    .url()
    .default("https://discord.com/api")
    .describe("Base URL of the REST API, without the version; the gateway URL is discovered from it."),
});

export type DiscordAdapterConfig = z.output<typeof discordAdapterConfigSchema>;
/** What a caller may pass: every option with a default may be left out. */
export type DiscordAdapterConfigInput = z.input<typeof discordAdapterConfigSchema>;
