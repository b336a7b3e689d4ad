import type { WebClient } from "@slack/web-api";
import { cachedPlaceLookup, type Logger } from "@switchboard/core/adapter";

/**
 * `C0GENERAL` → `#general` (a DM → `direct message`), by `conversations.info`, once per channel
 * and ten minutes. Needs `channels:read` (`groups:read`, `im:read` for those places); without the
 * scope the console shows the channel id.
 */
export function slackChannelNames(
  client: WebClient,
  logger: Logger,
): (channel: string) => Promise<string | undefined> {
  return cachedPlaceLookup(
    async (channel) => {
      const info = (await client.conversations.info({ channel })).channel;
      if (info?.is_im) return "direct message";
      return info?.name ? `#${info.name}` : undefined;
    },
    (error, channel) =>
      logger.debug("could not read a Slack channel's name (channels:read missing?)", { channel, error }),
  );
}
