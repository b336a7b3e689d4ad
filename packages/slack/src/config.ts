import { streamingConfigFields } from "@switchboard/core/adapter";
import { z } from "zod";

/**
 * Words that, right after a mention of the bot, mean a command: `@bot reset` → `/reset`. Used
 * only when no engine hands the adapter its commands (then every registered command is a word).
 */
export const DEFAULT_COMMAND_WORDS = ["help", "stop", "supervisor", "reset", "agents", "status"] as const;

/** The slash command an app is created with, unless `slashCommand` names another. */
export const DEFAULT_SLASH_COMMAND = "/switchboard";

/**
 * The `slack:` section of switchboard.yaml. Tokens are plain fields; the CLI fills them from
 * SWITCHBOARD_SLACK_* environment variables.
 */
export const slackAdapterConfigSchema = z.object({
  botToken: z
    .string()
    .startsWith("xoxb-", "botToken must be the Bot User OAuth Token (starts with xoxb-)")
    .describe("Bot User OAuth Token (OAuth & Permissions page)."),
  mode: z
    .enum(["socket", "http"])
    .optional()
    .describe(
      "How Slack reaches us. Left out, it follows the credentials: an app token means Socket Mode, a signing secret means HTTP.",
    ),
  appToken: z
    .string()
    .startsWith("xapp-", "appToken must be an app-level token (starts with xapp-)")
    .optional()
    .describe("App-level token with the connections:write scope (Socket Mode)."),
  signingSecret: z
    .string()
    .min(1)
    .optional()
    .describe("Signing Secret (Basic Information page); every HTTP request is verified with it."),
  port: z
    .number()
    .int()
    .min(0)
    .max(65_535)
    .default(3000)
    .describe("HTTP mode: port of the built-in server; 0 picks a free one."),
  host: z.string().default("0.0.0.0").describe("HTTP mode: interface to listen on."),
  eventsPath: z
    .string()
    .startsWith("/")
    .default("/slack/events")
    .describe("HTTP mode: the path set as Request URL for events, and for the slash command."),
  channels: z
    .array(z.string().min(1))
    .default([])
    .describe(
      "Only these channel ids are served (direct messages are governed by `directMessages`). Empty: every channel.",
    ),
  directMessages: z.boolean().default(true).describe("Answer direct messages at all."),
  dmConversations: z
    .enum(["per-dm", "per-thread"])
    .default("per-dm")
    .describe(
      "Top-level direct messages: `per-dm` keeps the whole DM one conversation (answers at top level); `per-thread` starts a conversation per message, answered in its thread. Thread replies in a DM are always their own conversation.",
    ),
  slashCommand: z
    .string()
    .regex(/^\/[a-z0-9_-]+$/, "slashCommand looks like /switchboard")
    .default(DEFAULT_SLASH_COMMAND)
    .describe("The slash command configured in the Slack app for channel-level use."),
  commandWords: z
    .array(z.string().regex(/^[a-z][a-z0-9_-]*$/))
    .optional()
    .describe(
      "Words that turn `@bot word args` into the command `/word args`. Left out: every chat command the engine has (help, agents, status, supervisor, reset, stop, approve, deny, memory, forget…).",
    ),
  workingIndicator: z
    .enum(["auto", "status", "reaction", "off"])
    .default("auto")
    .describe(
      "While a turn runs: `status` (assistant.threads.setStatus), `reaction` (an emoji on the asking message, removed at the end), `auto` (status where Slack allows it, else the reaction), `off`.",
    ),
  workingStatus: z
    .string()
    .min(1)
    .default("is working on it…")
    .describe("Status text shown under the thread while working."),
  workingReaction: z
    .string()
    .regex(/^[a-z0-9_+-]+$/, "workingReaction is an emoji name without colons")
    .default("hourglass_flowing_sand")
    .describe("Emoji name (no colons) for the reaction indicator."),
  /**
   * `streaming`, `streamEditIntervalMs`, `progress`: answers stream with chat.startStream /
   * appendStream / stopStream in threads (chat.update edits where that is not available), one call
   * per interval — about Slack's one message call per second per channel.
   */
  ...streamingConfigFields(1_200),
  apiUrl: z
    .url()
    .default("https://slack.com/api/")
    .describe("Web API base URL (GovSlack: https://slack-gov.com/api/; tests: a local stand-in)."),
});

export type SlackAdapterConfig = z.input<typeof slackAdapterConfigSchema>;
export type ResolvedSlackConfig = z.output<typeof slackAdapterConfigSchema>;

export type SlackConnection =
  | { readonly mode: "socket"; readonly appToken: string }
  | {
      readonly mode: "http";
      readonly signingSecret: string;
      readonly port: number;
      readonly host: string;
      readonly path: string;
    };

export class SlackConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SlackConfigError";
  }
}

/** Which way Slack reaches us, from the explicit mode or the credentials present. */
export function resolveConnection(config: ResolvedSlackConfig): SlackConnection {
  const mode = config.mode ?? (config.appToken ? "socket" : config.signingSecret ? "http" : undefined);
  if (mode === undefined) {
    throw new SlackConfigError(
      "slack: set appToken (Socket Mode) or signingSecret (HTTP Events API); neither is configured",
    );
  }
  if (mode === "socket") {
    if (!config.appToken) {
      throw new SlackConfigError(
        "slack: Socket Mode needs appToken (Basic Information → App-Level Tokens, scope connections:write)",
      );
    }
    return { mode, appToken: config.appToken };
  }
  if (!config.signingSecret) {
    throw new SlackConfigError("slack: HTTP mode needs signingSecret (Basic Information → App Credentials)");
  }
  return {
    mode,
    signingSecret: config.signingSecret,
    port: config.port,
    host: config.host,
    path: config.eventsPath,
  };
}
