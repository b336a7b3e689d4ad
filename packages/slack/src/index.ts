import type { SlackAdapterConfig } from "./config.ts";
import type { SlackAdapter, SlackAdapterDeps } from "./slack-adapter.ts";

export { type SlackAdapterConfig, slackAdapterConfigSchema } from "./config.ts";
export type { SlackAdapter } from "./slack-adapter.ts";

/**
 * Validates the `slack:` config and builds the adapter. Bolt and the Web API client are loaded
 * here, not when the package is imported: the schema alone must stay cheap to load for the many
 * configurations without Slack.
 */
export async function createSlackAdapter(
  config: SlackAdapterConfig,
  deps: SlackAdapterDeps = {},
): Promise<SlackAdapter> {
  const { SlackAdapter } = await import("./slack-adapter.ts");
  return new SlackAdapter(config, deps);
}
