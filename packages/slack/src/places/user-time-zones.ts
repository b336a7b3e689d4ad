import type { WebClient } from "@slack/web-api";
import type { Logger } from "@switchboard/core";

/**
 * A person's time zone from their Slack profile (`users.info`, the `tz` field), e.g.
 * `Europe/Berlin`. Needs `users:read`; without it (or for an unknown user) there is none and the
 * configured default is used. Core caches the answer per person.
 */
export function slackUserTimeZone(
  client: WebClient,
  logger: Logger,
): (userId: string) => Promise<string | undefined> {
  return async (userId) => {
    try {
      const tz = (await client.users.info({ user: userId })).user?.tz;
      return typeof tz === "string" && tz !== "" ? tz : undefined;
    } catch (error) {
      logger.debug("could not read a Slack user's time zone (users:read missing?)", { user: userId, error });
      return undefined;
    }
  };
}
