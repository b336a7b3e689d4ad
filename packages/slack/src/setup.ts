/**
 * What an operator's setup needs from the Slack adapter without starting it: the scopes and
 * events the adapter uses (for the app manifest), the live checks of the tokens, and the check of
 * the signing secret against the signed request Slack sends to a new Request URL. A subpath of
 * its own, so the package root stays cheap to load; @slack/web-api is loaded here.
 */
import { WebClient } from "@slack/web-api";
import type { Logger } from "@switchboard/core/adapter";
import { DEFAULT_SLASH_COMMAND } from "./config.ts";
import {
  checkScopes,
  neededScopes,
  type ScopeCheck,
  type ScopeNeeds,
  subscribedEvents,
} from "./connect/scopes.ts";
import { type BotIdentity, verifyAppToken, verifyBotToken } from "./connect/verify-credentials.ts";

export {
  type BotIdentity,
  SlackAuthError,
  SlackScopeError,
  SlackUnreachableError,
} from "./connect/verify-credentials.ts";
export {
  awaitSignedRequest,
  type RequestUrlCheckOptions,
  RequestUrlListenError,
  type RequestUrlVerdict,
} from "./intake/request-url-check.ts";
export {
  checkScopes,
  DEFAULT_SLASH_COMMAND,
  neededScopes,
  type ScopeCheck,
  type ScopeNeeds,
  subscribedEvents,
};

export interface SlackTokens {
  readonly botToken: string;
  /** Socket Mode: checked with apps.connections.open. */
  readonly appToken?: string;
  /** Web API base URL (default Slack's). */
  readonly apiUrl?: string;
}

/**
 * auth.test with the bot token (who the bot is; required scopes present, from `x-oauth-scopes`),
 * then, with an app token, apps.connections.open — the call Socket Mode starts with. Throws
 * {@link SlackAuthError}, {@link SlackScopeError} or {@link SlackUnreachableError} with what to fix.
 */
export async function checkSlackTokens(
  tokens: SlackTokens,
  needs: ScopeNeeds,
  logger: Logger,
): Promise<BotIdentity> {
  const apiUrl = tokens.apiUrl ?? "https://slack.com/api/";
  const client = new WebClient(tokens.botToken, { slackApiUrl: apiUrl, retryConfig: { retries: 0 } });
  const identity = await verifyBotToken(client, needs, logger);
  if (tokens.appToken !== undefined) await verifyAppToken(tokens.appToken, apiUrl);
  return identity;
}
