/** Slack's own error word (`invalid_auth`, `not_in_channel`…) when the Web API refused a call; undefined for other failures. */
export function platformErrorCode(error: unknown): string | undefined {
  if (!(error instanceof Error) || !("code" in error) || error.code !== "slack_webapi_platform_error")
    return undefined;
  const data: unknown = "data" in error ? error.data : undefined;
  if (typeof data !== "object" || data === null || !("error" in data)) return undefined;
  return typeof data.error === "string" ? data.error : undefined;
}

/**
 * The seconds Slack asked to wait when it refused a call past the method's rate limit (HTTP 429;
 * the client hands it back at once, see slack-adapter.ts); undefined for any other failure.
 */
export function rateLimitedFor(error: unknown): number | undefined {
  if (!(error instanceof Error) || !("code" in error) || error.code !== "slack_webapi_rate_limited_error")
    return undefined;
  const seconds: unknown = "retryAfter" in error ? error.retryAfter : undefined;
  return typeof seconds === "number" && seconds >= 0 ? seconds : undefined;
}

/** A Web API call Slack refused, with what to do about it. */
export class SlackApiError extends Error {
  readonly method: string;
  readonly slackError: string;
  constructor(method: string, slackError: string, advice: string, options?: { cause?: unknown }) {
    super(`Slack refused ${method}: ${slackError}${advice ? ` — ${advice}` : ""}`, options);
    this.name = "SlackApiError";
    this.method = method;
    this.slackError = slackError;
  }
}

const ADVICE: Record<string, string> = {
  not_in_channel: "invite the bot to the channel (/invite @bot)",
  channel_not_found: "the channel does not exist or the bot cannot see it; invite the bot to it",
  is_archived: "the channel is archived",
  missing_scope: "add the missing scope under OAuth & Permissions → Bot Token Scopes and reinstall the app",
  invalid_auth: "the bot token is not valid; copy the Bot User OAuth Token again",
  token_revoked: "the bot token was revoked; reinstall the app and copy the new token",
  account_inactive: "the bot token belongs to a deactivated app or workspace",
  msg_too_long: "the message is longer than Slack accepts",
};

/** Turns a refused call into a SlackApiError that says what to fix; anything else is rethrown as is. */
export function explainSlackError(method: string, error: unknown): never {
  const code = platformErrorCode(error);
  if (code === undefined) throw error;
  throw new SlackApiError(method, code, ADVICE[code] ?? "", { cause: error });
}
