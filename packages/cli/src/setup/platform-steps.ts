import type { CommandSummary } from "@switchboard/core/adapter";
import { createStreamLogger } from "@switchboard/core/host";
import {
  BOT_PERMISSIONS,
  botPermissions,
  describeCommandScope,
  discordInviteUrl,
  inspectDiscordBot,
  privilegedIntents,
  registerSlashCommandsOverRest,
} from "@switchboard/discord/setup";
import { checkSlackTokens, DEFAULT_SLASH_COMMAND } from "@switchboard/slack/setup";
import type { Environment } from "../config/env-overrides.ts";
import type { LoadedConfig } from "../config/load-config.ts";
import { type Asker, SetupStopped, secretFromEnvOrAsked } from "./asker.ts";
import { passwordLogin, setDisplayName, whoAmI } from "./matrix-login.ts";
import { manifestLink, manifestYaml, slackManifest } from "./slack-manifest.ts";

export interface StepContext {
  readonly asker: Asker;
  readonly env: Environment;
  readonly commands: readonly CommandSummary[];
}

/** What one platform's part of setup produced. */
export interface PlatformStep {
  /** The section for switchboard.yaml (no secrets). */
  readonly section: Record<string, unknown>;
  /** Variables for switchboard.env. */
  readonly secrets: Record<string, string>;
  /** Runs once both files are written (e.g. registering slash commands); false when it failed. */
  readonly afterWrite?: (loaded: LoadedConfig) => Promise<boolean>;
}

const SLACK_API = "https://slack.com/api/";
const DISCORD_API = "https://discord.com/api";

/** Setup's checks report through the asker; the adapters' own log lines are not wanted here. */
const quiet = createStreamLogger("error", () => {});

/** Tries a live check; on failure, asks (in the terminal) whether to enter the answers again. */
async function untilAccepted<T>(asker: Asker, what: string, attempt: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      asker.problem((error as Error).message);
      if (!asker.interactive || !(await asker.confirm(`retry.${what}`, `Try ${what} again?`, true)))
        throw new SetupStopped(`${what} was not accepted; nothing was written`);
    }
  }
}

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
  const requestUrl =
    mode === "http"
      ? await asker.text("slack.requestUrl", "The public HTTPS URL Slack should call (ends in /slack/events)")
      : undefined;
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
  if (mode === "http")
    asker.warn(
      "Slack: the signing secret is checked on Slack's first signed request (Request URL verification) once Switchboard runs",
    );
  return {
    section: {
      ...(mode === "http" ? { mode: "http" } : {}),
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

export async function setupDiscord({ asker, env, commands }: StepContext): Promise<PlatformStep> {
  const apiUrl = await asker.text("discord.apiUrl", "Discord API URL", { initial: DISCORD_API, quiet: true });
  asker.show(
    "Create the Discord application",
    [
      "1. https://discord.com/developers/applications → New Application, name it.",
      "2. Bot → Reset Token, and copy the token.",
      `3. Bot → Privileged Gateway Intents: switch on ${privilegedIntents().join(", ")} and save.`,
    ].join("\n"),
  );
  let token = "";
  const facts = await untilAccepted(asker, "the Discord token", async () => {
    token = await secretFromEnvOrAsked(asker, env, "SWITCHBOARD_DISCORD_TOKEN", "Bot token");
    const found = await inspectDiscordBot(token, apiUrl);
    if (!found.messageContent)
      throw new Error(
        `the ${privilegedIntents().join(", ")} is off for ${found.applicationName}: Bot → Privileged Gateway Intents, switch it on and save`,
      );
    return found;
  });
  asker.ok(
    `Discord: the bot is ${facts.botName} (application ${facts.applicationName}); ${privilegedIntents().join(", ")} is on`,
  );
  asker.show("Invite the bot to your server", inviteText(facts.applicationId));
  const guild = await asker.text(
    "discord.guild",
    "Server id for the slash commands (instant there; empty: global, which Discord may take a while to show)",
    { optional: true },
  );
  if (guild !== "" && !/^\d{5,25}$/.test(guild))
    throw new SetupStopped(`a Discord server id is digits only (got ${guild})`);
  const places = { guildIds: guild === "" ? [] : [guild], global: guild === "" };
  return {
    section: {
      ...(guild === "" ? { globalCommands: true } : { commandGuildIds: [guild] }),
      ...(apiUrl === DISCORD_API ? {} : { apiUrl }),
    },
    secrets: { SWITCHBOARD_DISCORD_TOKEN: token },
    afterWrite: async () => {
      try {
        const count = await registerSlashCommandsOverRest(
          token,
          apiUrl,
          facts.applicationId,
          places,
          commands,
        );
        asker.ok(
          `Discord: ${count} slash commands registered in ${describeCommandScope(places.global ? undefined : guild)}`,
        );
        return true;
      } catch (error) {
        asker.problem(`Discord: ${(error as Error).message}`);
        return false;
      }
    },
  };
}

/** The invite link and what each permission is for. */
export function inviteText(applicationId: string): string {
  return [
    discordInviteUrl(applicationId),
    `Scopes: bot applications.commands. Permissions (${botPermissions()}):`,
    ...BOT_PERMISSIONS.map(({ name, why }) => `  ${name}: ${why}`),
  ].join("\n");
}

export async function setupMatrix({ asker, env }: StepContext): Promise<PlatformStep> {
  const homeserverUrl = (await asker.text("matrix.homeserver", "Homeserver URL (https://…)")).replace(
    /\/+$/,
    "",
  );
  const user = await asker.text("matrix.user", "The bot account (user name or @user:server)");
  const login = await untilAccepted(asker, "the Matrix login", async () => {
    const kept = env.SWITCHBOARD_MATRIX_ACCESS_TOKEN?.trim();
    if (
      kept &&
      (!asker.interactive ||
        (await asker.confirm(
          "env.SWITCHBOARD_MATRIX_ACCESS_TOKEN",
          "Use SWITCHBOARD_MATRIX_ACCESS_TOKEN from the environment?",
          true,
        )))
    ) {
      const who = await whoAmI(homeserverUrl, kept);
      return { userId: who.userId, accessToken: kept, deviceId: who.deviceId ?? "" };
    }
    const password = await asker.secret(
      "SWITCHBOARD_MATRIX_PASSWORD",
      "Password (used once to log in; never stored)",
    );
    return passwordLogin(homeserverUrl, user, password, "Switchboard");
  });
  const who = await whoAmI(homeserverUrl, login.accessToken);
  if (who.userId !== login.userId)
    throw new SetupStopped(`the token belongs to ${who.userId}, not to ${login.userId}`);
  asker.ok(
    `Matrix: logged in as ${who.userId}${who.deviceId ? `, device ${who.deviceId}` : ""} (/whoami agrees; the password is not stored)`,
  );
  const encryption = await asker.confirm(
    "matrix.e2ee",
    "Turn on end-to-end encryption? (Element encrypts new DMs and private rooms by default)",
    true,
  );
  const displayName = await asker.text("matrix.displayName", "Display name people see", {
    initial: "Switchboard",
  });
  await setDisplayName(homeserverUrl, login.accessToken, who.userId, displayName);
  asker.ok(`Matrix: display name set to ${displayName}`);
  return {
    section: { homeserverUrl, userId: who.userId, encryption },
    secrets: { SWITCHBOARD_MATRIX_ACCESS_TOKEN: login.accessToken },
    afterWrite: async () => {
      asker.show(
        "Invite the bot",
        `Invite ${who.userId} to a room (or start a DM with it); it joins and answers when mentioned. ` +
          "People of its own homeserver may invite it; for others, list them under inviters: in matrix:.",
      );
      return true;
    },
  };
}
