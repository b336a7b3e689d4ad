import {
  type DiscordAdapterConfig,
  type DiscordAdapterConfigInput,
  discordAdapterConfigSchema,
} from "./config.ts";
import type { DiscordAdapter, DiscordAdapterDeps } from "./discord-adapter.ts";

export { type DiscordAdapterConfig, discordAdapterConfigSchema } from "./config.ts";
export type { DiscordAdapter } from "./discord-adapter.ts";

/**
 * Validates the `discord:` config (defaults filled in) and builds the adapter. discord.js is loaded
 * here, not when the package is imported: the schema alone must stay cheap to load for the many
 * configurations without Discord.
 */
export async function createDiscordAdapter(
  config: DiscordAdapterConfigInput,
  deps: DiscordAdapterDeps = {},
): Promise<DiscordAdapter> {
  const parsed: DiscordAdapterConfig = discordAdapterConfigSchema.parse(config);
  const { DiscordAdapter } = await import("./discord-adapter.ts");
  return new DiscordAdapter(parsed, deps);
}
