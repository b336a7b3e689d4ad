/**
 * Every environment variable Switchboard reads, in one table. Secrets belong in the environment
 * (or a secret manager that fills it), not in switchboard.yaml; a variable set here wins over the file.
 *
 * Platform secrets only fill a section the file already has: an exported token never switches a
 * platform on by itself (write `discord:` in switchboard.yaml to enable Discord).
 */
import type { Platform } from "./platform-sections.ts";

/** Sections whose secrets may come from the environment; each is switched on only by the file. */
export type SecretSection = Platform | "http";

export type Environment = Readonly<Record<string, string | undefined>>;

export type EnvTarget =
  /** Replaces a top-level key of the file. */
  | { readonly kind: "key"; readonly key: "model" | "store" | "checkpoints" | "logLevel" | "role" }
  /** Fills a field of a section that is present (a platform, or http). */
  | { readonly kind: "section-secret"; readonly section: SecretSection; readonly field: string }
  /** The API key for every model of this provider (the main model and any agent's own). */
  | { readonly kind: "provider-key"; readonly provider: "openai" | "anthropic" };

export interface EnvOverride {
  readonly variable: string;
  readonly target: EnvTarget;
  readonly description: string;
}

export const ENV_OVERRIDES: readonly EnvOverride[] = [
  {
    variable: "SWITCHBOARD_MODEL",
    target: { kind: "key", key: "model" },
    description: "model string, e.g. openai:gpt-4o-mini (replaces model:)",
  },
  {
    variable: "OPENAI_API_KEY",
    target: { kind: "provider-key", provider: "openai" },
    description: "API key for openai:* models",
  },
  {
    variable: "ANTHROPIC_API_KEY",
    target: { kind: "provider-key", provider: "anthropic" },
    description: "API key for anthropic:* models",
  },
  {
    variable: "SWITCHBOARD_STORE_URL",
    target: { kind: "key", key: "store" },
    description: "store URL (replaces store:)",
  },
  {
    variable: "SWITCHBOARD_CHECKPOINTS_URL",
    target: { kind: "key", key: "checkpoints" },
    description: "checkpointer URL (replaces checkpoints:)",
  },
  {
    variable: "SWITCHBOARD_LOG_LEVEL",
    target: { kind: "key", key: "logLevel" },
    description: "debug | info | warn | error (replaces logLevel:)",
  },
  {
    variable: "SWITCHBOARD_ROLE",
    target: { kind: "key", key: "role" },
    description: "all | ingress | worker (replaces role:; --role wins)",
  },
  {
    variable: "SWITCHBOARD_MATRIX_ACCESS_TOKEN",
    target: { kind: "section-secret", section: "matrix", field: "accessToken" },
    description: "Matrix bot access token (matrix.accessToken)",
  },
  {
    variable: "SWITCHBOARD_DISCORD_TOKEN",
    target: { kind: "section-secret", section: "discord", field: "token" },
    description: "Discord bot token (discord.token)",
  },
  {
    variable: "SWITCHBOARD_SLACK_BOT_TOKEN",
    target: { kind: "section-secret", section: "slack", field: "botToken" },
    description: "Slack bot token xoxb-… (slack.botToken)",
  },
  {
    variable: "SWITCHBOARD_SLACK_APP_TOKEN",
    target: { kind: "section-secret", section: "slack", field: "appToken" },
    description: "Slack app-level token xapp-… for Socket Mode (slack.appToken)",
  },
  {
    variable: "SWITCHBOARD_SLACK_SIGNING_SECRET",
    target: { kind: "section-secret", section: "slack", field: "signingSecret" },
    description: "Slack signing secret, for HTTP events (slack.signingSecret)",
  },
  {
    variable: "SWITCHBOARD_WEBHOOK_SECRET",
    target: { kind: "section-secret", section: "http", field: "webhookSecret" },
    description: "shared secret that signs POST /webhooks/runs (http.webhookSecret)",
  },
  {
    variable: "SWITCHBOARD_CONSOLE_TOKEN",
    target: { kind: "section-secret", section: "http", field: "consoleToken" },
    description: "token that opens the operator console at /console (http.consoleToken)",
  },
];

/** Where an override lands, in switchboard.yaml path terms (for messages). */
export function overridePath(target: EnvTarget): string {
  switch (target.kind) {
    case "key":
      return target.key;
    case "section-secret":
      return `${target.section}.${target.field}`;
    case "provider-key":
      return "model.apiKey";
  }
}

/** A variable counts as set only with a non-blank value: `FOO= ./run start` must not blank out the file. */
export function envValue(env: Environment, variable: string): string | undefined {
  const value = env[variable]?.trim();
  return value ? value : undefined;
}
