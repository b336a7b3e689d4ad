import {
  type DiscordAdapterConfig,
  type DiscordAdapterConfigInput,
  discordAdapterConfigSchema,
} from "./config.ts";
import { DiscordAdapter, type DiscordAdapterDeps } from "./discord-adapter.ts";

export { type DiscordAdapterConfig, discordAdapterConfigSchema } from "./config.ts";
export { DiscordAdapter } from "./discord-adapter.ts";

/** Validates the `discord:` config (defaults filled in) and builds the adapter. */
export function createDiscordAdapter(
  config: DiscordAdapterConfigInput,
  deps: DiscordAdapterDeps = {},
): DiscordAdapter {
  const parsed: DiscordAdapterConfig = discordAdapterConfigSchema.parse(config);
  return new DiscordAdapter(parsed, deps);
}
