import { WebClient } from "@slack/web-api";
import type { Logger } from "@switchboard/core/adapter";
import { platformErrorCode } from "../slack-api-errors.ts";
import { checkScopes, type ScopeNeeds } from "./scopes.ts";

/** Who the bot is in the workspace, from auth.test. */
export interface BotIdentity {
  readonly userId: string;
  readonly botId: string;
  readonly teamId: string;
  readonly name: string;
  /** Optional scopes the token lacks (features that are off), when Slack reported the scopes. */
  readonly missingScopes: readonly string[];
  /** Every scope the token has; undefined when Slack did not report them. */
  readonly grantedScopes?: readonly string[];
}

/** Slack does not accept a token: the operator has to fix configuration. */
export class SlackAuthError extends Error {
  readonly slackError: string;
  constructor(which: "bot token" | "app token", slackError: string, advice: string) {
    super(`Slack rejected the ${which} (${slackError}): ${advice}`);
    this.name = "SlackAuthError";
    this.slackError = slackError;
  }
}

/** The bot token lacks scopes the adapter cannot work without. */
export class SlackScopeError extends Error {
  readonly missing: readonly string[];
  constructor(missing: readonly string[]) {
    super(
      `the Slack bot token is missing the scopes ${missing.join(", ")}: add them under OAuth & Permissions → ` +
        "Bot Token Scopes, reinstall the app to the workspace, and use the new Bot User OAuth Token",
    );
    this.name = "SlackScopeError";
    this.missing = missing;
  }
}

/** Slack's Web API could not be reached at all (network, proxy, DNS, a wrong apiUrl). */
export class SlackUnreachableError extends Error {
  readonly apiUrl: string;
  constructor(apiUrl: string, cause: unknown) {
    super(
      `could not reach Slack's Web API at ${apiUrl} (${networkReason(cause)}): check this machine's network, ` +
        "proxy and DNS, or correct slack.apiUrl if it is set",
      { cause },
    );
    this.name = "SlackUnreachableError";
    this.apiUrl = apiUrl;
  }
}

/** The innermost useful words of a network failure (`ECONNREFUSED`, `getaddrinfo ENOTFOUND …`). */
function networkReason(error: unknown): string {
  let current: unknown = error;
  let reason = error instanceof Error ? error.message : String(error);
  for (let depth = 0; depth < 5 && current instanceof Error; depth += 1) {
    const code = "code" in current && typeof current.code === "string" ? current.code : undefined;
    if (code && !code.startsWith("slack_"))
      return code === current.message ? code : `${code}: ${current.message}`;
    reason = current.message;
    current = "original" in current && current.original !== undefined ? current.original : current.cause;
  }
  return reason;
}

const BOT_TOKEN_ADVICE =
  "use the Bot User OAuth Token (xoxb-…) from OAuth & Permissions of an app installed to the workspace";

/**
 * auth.test with the bot token: who the bot is, and whether it may do its job. A bad token or a
 * missing required scope fails with what to fix; missing optional scopes are logged.
 */
export async function verifyBotToken(
  client: WebClient,
  needs: ScopeNeeds,
  logger: Logger,
): Promise<BotIdentity> {
  let result: Awaited<ReturnType<WebClient["auth"]["test"]>>;
  try {
    result = await client.auth.test();
  } catch (error) {
    const code = platformErrorCode(error);
    if (code !== undefined) throw new SlackAuthError("bot token", code, BOT_TOKEN_ADVICE);
    throw new SlackUnreachableError(client.slackApiUrl, error);
  }
  const { user_id: userId, bot_id: botId, team_id: teamId, user: name } = result;
  if (!userId || !teamId) throw new SlackAuthError("bot token", "not_a_bot", BOT_TOKEN_ADVICE);
  if (!botId) throw new SlackAuthError("bot token", "not_a_bot_token", BOT_TOKEN_ADVICE);

  const granted = result.response_metadata?.scopes;
  let missingScopes: readonly string[] = [];
  if (granted === undefined) {
    logger.warn("Slack did not report the token's scopes; skipping the scope check");
  } else {
    const { missingRequired, missingRecommended } = checkScopes(granted, needs);
    if (missingRequired.length > 0) throw new SlackScopeError(missingRequired);
    missingScopes = missingRecommended;
    if (missingRecommended.length > 0) {
      logger.warn("the Slack bot token lacks optional scopes; some features are off", {
        missing: missingRecommended.join(","),
      });
    }
  }
  return {
    userId,
    botId,
    teamId,
    name: name ?? "switchboard",
    missingScopes,
    ...(granted === undefined ? {} : { grantedScopes: granted }),
  };
}

/** apps.connections.open with the app-level token: the call Socket Mode starts with. */
export async function verifyAppToken(appToken: string, apiUrl: string): Promise<void> {
  const client = new WebClient(appToken, { slackApiUrl: apiUrl, retryConfig: { retries: 0 } });
  try {
    await client.apps.connections.open();
  } catch (error) {
    const code = platformErrorCode(error);
    if (code === undefined) throw error;
    throw new SlackAuthError(
      "app token",
      code,
      "use an App-Level Token (xapp-…) with the connections:write scope (Basic Information → App-Level Tokens) and turn Socket Mode on",
    );
  }
}
