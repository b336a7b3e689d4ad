import { createStreamLogger } from "@switchboard/core/host";
import { checkSlackTokens, DEFAULT_SLASH_COMMAND } from "@switchboard/slack/setup";
import { type Asker, SetupStopped, secretFromEnvOrAsked } from "./asker.ts";
import { type PlatformStep, type StepContext, untilAccepted } from "./platform-step.ts";
import { manifestLink, manifestYaml, slackManifest } from "./slack-manifest.ts";
import { checkSigningSecret, type HttpEndpoint, httpEndpoint } from "./slack-signing-check.ts";

const SLACK_API = "https://slack.com/api/";
/** The adapter's defaults for `slack.port` and `slack.eventsPath` (written only when they differ). */
const DEFAULT_PORT = 3000;
const DEFAULT_EVENTS_PATH = "/slack/events";

/** Setup's checks report through the asker; the adapter's own log lines are not wanted here. */
const quiet = createStreamLogger("error", () => {});

/**
 * Slack: the manifest and the link that creates the app from it, the tokens checked live
 * (auth.test and its scopes, apps.connections.open), and the channel invite step.
 */
export async function setupSlack({ asker, env, commands }: StepContext): Promise<PlatformStep> {
  const mode = await asker.select(
    "slack.mode",
    "How should Slack reach Switchboard?",
    [
      { value: "socket", label: "Socket Mode", hint: "an outbound connection: no public URL needed" },
      { value: "http", label: "HTTP events", hint: "Slack calls a public HTTPS URL of yours" },
    ] as const,
    "socket",
  );
  const endpoint = mode === "http" ? await askEndpoint(asker) : undefined;
  const requestUrl = endpoint?.requestUrl;
  const apiUrl = await asker.text("slack.apiUrl", "Slack Web API URL", { initial: SLACK_API, quiet: true });
  const manifest = slackManifest({
    name: "Switchboard",
    slashCommand: DEFAULT_SLASH_COMMAND,
    commands,
    directMessages: true,
    connection: requestUrl === undefined ? { mode: "socket" } : { mode: "http", requestUrl },
  });
  asker.show("Slack app manifest", manifestYaml(manifest));
  asker.show(
    "Create the Slack app",
    [
      "Open this link, pick the workspace and create the app from the manifest above:",
      manifestLink(manifest),
      "Then: Install to Workspace, and copy the Bot User OAuth Token (xoxb-…, OAuth & Permissions).",
      mode === "socket"
        ? "Socket Mode: Basic Information → App-Level Tokens → Generate, scope connections:write (xapp-…)."
        : "HTTP: Basic Information → App Credentials → Signing Secret.",
    ].join("\n"),
  );
  const secrets: Record<string, string> = {};
  const identity = await untilAccepted(asker, "the Slack tokens", async () => {
    const botToken = await secretFromEnvOrAsked(
      asker,
      env,
      "SWITCHBOARD_SLACK_BOT_TOKEN",
      "Bot User OAuth Token (xoxb-…)",
    );
    secrets.SWITCHBOARD_SLACK_BOT_TOKEN = botToken;
    if (mode === "socket") {
      const appToken = await secretFromEnvOrAsked(
        asker,
        env,
        "SWITCHBOARD_SLACK_APP_TOKEN",
        "App-Level Token (xapp-…)",
      );
      secrets.SWITCHBOARD_SLACK_APP_TOKEN = appToken;
      if (!appToken.startsWith("xapp-"))
        throw new Error("the app-level token starts with xapp- (Basic Information → App-Level Tokens)");
    } else {
      const signingSecret = await secretFromEnvOrAsked(
        asker,
        env,
        "SWITCHBOARD_SLACK_SIGNING_SECRET",
        "Signing Secret",
      );
      secrets.SWITCHBOARD_SLACK_SIGNING_SECRET = signingSecret;
      // Slack's signing secrets are 32 hex digits; whether it is this app's shows on Slack's first request.
      if (!/^[0-9a-f]{32}$/.test(signingSecret))
        throw new Error(
          "a Slack signing secret is 32 hexadecimal digits (Basic Information → App Credentials)",
        );
    }
    if (!botToken.startsWith("xoxb-"))
      throw new Error("the bot token starts with xoxb- (OAuth & Permissions → Bot User OAuth Token)");
    return checkSlackTokens(
      {
        botToken,
        ...(secrets.SWITCHBOARD_SLACK_APP_TOKEN ? { appToken: secrets.SWITCHBOARD_SLACK_APP_TOKEN } : {}),
        apiUrl,
      },
      { directMessages: true, reactions: true },
      quiet,
    );
  });
  asker.ok(
    `Slack: the bot is @${identity.name} in workspace ${identity.teamId}; the required scopes are granted` +
      (mode === "socket" ? "; Socket Mode connects" : ""),
  );
  if (identity.missingScopes.length > 0)
    asker.warn(
      `Slack: the token lacks ${identity.missingScopes.join(", ")} (some features stay off): add them under OAuth & Permissions and reinstall the app`,
    );
  if (endpoint !== undefined) {
    const signingSecret = await checkSigningSecret(
      asker,
      endpoint,
      secrets.SWITCHBOARD_SLACK_SIGNING_SECRET ?? "",
    );
    secrets.SWITCHBOARD_SLACK_SIGNING_SECRET = signingSecret;
  }
  return {
    section: {
      ...(endpoint === undefined
        ? {}
        : {
            mode: "http",
            ...(endpoint.port === DEFAULT_PORT ? {} : { port: endpoint.port }),
            ...(endpoint.path === DEFAULT_EVENTS_PATH ? {} : { eventsPath: endpoint.path }),
          }),
      ...(apiUrl === SLACK_API ? {} : { apiUrl }),
    },
    secrets,
    afterWrite: async () => {
      asker.show(
        "Invite the bot to its channels",
        [
          `In each channel it should serve, write: /invite @${identity.name}`,
          `People reach it by mentioning it, by DM (App Home → Messages), or with ${DEFAULT_SLASH_COMMAND}.`,
        ].join("\n"),
      );
      return true;
    },
  };
}

/** HTTP mode: where Slack's requests arrive on this machine (the Request URL's path, a local port). */
async function askEndpoint(asker: Asker): Promise<HttpEndpoint> {
  for (;;) {
    const requestUrl = await asker.text(
      "slack.requestUrl",
      "The public HTTPS URL Slack should call (ends in /slack/events)",
    );
    const port = await asker.text(
      "slack.port",
      "Port Switchboard listens on for Slack (your public URL forwards to it)",
      { initial: String(DEFAULT_PORT) },
    );
    const endpoint = httpEndpoint(requestUrl, port);
    if (typeof endpoint !== "string") return endpoint;
    asker.problem(endpoint);
    if (!asker.interactive) throw new SetupStopped(endpoint);
  }
}
