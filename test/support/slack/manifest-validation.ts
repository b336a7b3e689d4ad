/**
 * What Slack's `apps.manifest.validate` checks, for the stand-in. No Slack manifest schema is
 * published on npm; these rules are taken from Slack's documentation and its published JSON schema
 * (github.com/slackapi/manifest-schema, schemas/manifest.schema.1.0.0.json):
 * - App manifest reference (docs.slack.dev/reference/app-manifest): the known top-level keys and
 *   the keys of each section (unknown keys are refused: `additionalProperties: false`);
 *   `display_information.name` required, 1–35 characters; `description` ≤ 140; `bot_user` needs a
 *   `display_name` (1–80); a slash command's `command` starts with "/" (2–32 characters), needs a
 *   `description` (≤ 2,000), `usage_hint` ≤ 1,000, `url` http(s); `interactivity.is_enabled` required;
 *   `bot_events` unique, at most 100.
 * - Scopes (docs.slack.dev/reference/scopes): bot scopes must be known scope names; an app with
 *   bot scopes has a bot user; slash commands need the `commands` scope.
 * - Events API (docs.slack.dev/reference/events): each bot event must be a known event and needs
 *   its scope (`app_mention` → `app_mentions:read`, `message.im` → `im:history`, …).
 * - Socket Mode (docs.slack.dev/apis/events-api/using-socket-mode): without it, event subscriptions,
 *   interactivity and slash commands each need a Request URL.
 * - The App Home's Messages tab needs a bot user (users write to the bot there).
 * Errors come back as Slack shapes them: `{ ok: false, error: "invalid_manifest", errors: [{ message, pointer }] }`,
 * `pointer` a JSON Pointer into the manifest.
 */

export interface ManifestProblem {
  readonly message: string;
  readonly pointer: string;
}

/** Bot token scopes Slack knows (a subset of docs.slack.dev/reference/scopes: those bots can hold). */
export const KNOWN_BOT_SCOPES = new Set([
  "app_mentions:read",
  "assistant:write",
  "bookmarks:read",
  "bookmarks:write",
  "calls:read",
  "calls:write",
  "canvases:read",
  "canvases:write",
  "channels:history",
  "channels:join",
  "channels:manage",
  "channels:read",
  "chat:write",
  "chat:write.customize",
  "chat:write.public",
  "commands",
  "dnd:read",
  "emoji:read",
  "files:read",
  "files:write",
  "groups:history",
  "groups:read",
  "groups:write",
  "im:history",
  "im:read",
  "im:write",
  "incoming-webhook",
  "links:read",
  "links:write",
  "metadata.message:read",
  "mpim:history",
  "mpim:read",
  "mpim:write",
  "pins:read",
  "pins:write",
  "reactions:read",
  "reactions:write",
  "reminders:read",
  "reminders:write",
  "team:read",
  "usergroups:read",
  "usergroups:write",
  "users.profile:read",
  "users:read",
  "users:read.email",
  "users:write",
]);

/** Bot events Slack knows, with the scope each needs (undefined: none). */
export const BOT_EVENT_SCOPES: ReadonlyMap<string, string | undefined> = new Map([
  ["app_home_opened", undefined],
  ["app_mention", "app_mentions:read"],
  ["app_uninstalled", undefined],
  ["assistant_thread_started", "assistant:write"],
  ["assistant_thread_context_changed", "assistant:write"],
  ["channel_created", "channels:read"],
  ["channel_rename", "channels:read"],
  ["file_shared", "files:read"],
  ["link_shared", "links:read"],
  ["member_joined_channel", "channels:read"],
  ["message.channels", "channels:history"],
  ["message.groups", "groups:history"],
  ["message.im", "im:history"],
  ["message.mpim", "mpim:history"],
  ["reaction_added", "reactions:read"],
  ["reaction_removed", "reactions:read"],
  ["team_join", "users:read"],
  ["tokens_revoked", undefined],
  ["user_change", "users:read"],
]);

const TOP_LEVEL = ["_metadata", "display_information", "features", "oauth_config", "settings"];
const SECTION_KEYS: Record<string, readonly string[]> = {
  _metadata: ["major_version", "minor_version"],
  display_information: ["name", "description", "background_color", "long_description"],
  features: ["app_home", "bot_user", "shortcuts", "slash_commands", "unfurl_domains", "workflow_steps"],
  oauth_config: ["redirect_urls", "scopes", "token_management_enabled"],
  settings: [
    "allowed_ip_address_ranges",
    "event_subscriptions",
    "incoming_webhooks",
    "interactivity",
    "org_deploy_enabled",
    "socket_mode_enabled",
    "token_rotation_enabled",
  ],
};
const APP_HOME_KEYS = ["home_tab_enabled", "messages_tab_enabled", "messages_tab_read_only_enabled"];
const SLASH_COMMAND_KEYS = ["command", "description", "usage_hint", "should_escape", "url"];
const HTTP_URL = /^https?:\/\//;

type Json = Record<string, unknown>;
const objectAt = (value: unknown): Json | undefined =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
const stringsAt = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];

/** Every problem Slack would report for this manifest; empty when it is valid. */
export function validateManifest(value: unknown): ManifestProblem[] {
  const problems: ManifestProblem[] = [];
  const problem = (pointer: string, message: string) => problems.push({ pointer, message });
  const manifest = objectAt(value);
  if (!manifest) return [{ pointer: "/", message: "The manifest must be an object" }];
  const unknownKeys = (object: Json, allowed: readonly string[], at: string) => {
    for (const key of Object.keys(object))
      if (!allowed.includes(key)) problem(`${at}/${key}`, `Unknown property: ${key}`);
  };
  const optionalString = (object: Json, key: string, at: string, max: number) => {
    const field = object[key];
    if (field === undefined) return;
    if (typeof field !== "string" || field.length === 0 || field.length > max)
      problem(`${at}/${key}`, `Must be a string of 1 to ${max} characters`);
  };
  const httpUrl = (object: Json | undefined, key: string, at: string) => {
    const url = object?.[key];
    if (url !== undefined && (typeof url !== "string" || !HTTP_URL.test(url)))
      problem(`${at}/${key}`, "Must be an http(s) URL");
  };
  unknownKeys(manifest, TOP_LEVEL, "");
  for (const [section, keys] of Object.entries(SECTION_KEYS)) {
    const object = objectAt(manifest[section]);
    if (manifest[section] !== undefined && !object) problem(`/${section}`, "Must be an object");
    if (object) unknownKeys(object, keys, `/${section}`);
  }

  const display = objectAt(manifest.display_information);
  const name = display?.name;
  if (!display) problem("/display_information", "Required property: display_information");
  else if (typeof name !== "string" || name.length === 0)
    problem("/display_information/name", "Required property: name");
  else if (name.length > 35) problem("/display_information/name", "Must be 35 characters or fewer");
  if (display) optionalString(display, "description", "/display_information", 140);

  const features = objectAt(manifest.features) ?? {};
  const settings = objectAt(manifest.settings) ?? {};
  const socketMode = settings.socket_mode_enabled === true;
  const botScopes = stringsAt(objectAt(objectAt(manifest.oauth_config)?.scopes)?.bot);
  botScopes.forEach((scope, index) => {
    if (!KNOWN_BOT_SCOPES.has(scope)) problem(`/oauth_config/scopes/bot/${index}`, `Invalid scope: ${scope}`);
  });

  const botUser = objectAt(features.bot_user);
  if (botUser) {
    unknownKeys(botUser, ["display_name", "always_online"], "/features/bot_user");
    const displayName = botUser.display_name;
    if (typeof displayName !== "string" || displayName.length === 0 || displayName.length > 80)
      problem("/features/bot_user/display_name", "Required property: display_name (1 to 80 characters)");
  } else if (botScopes.length > 0)
    problem("/features/bot_user", "A bot user is required when the app asks for bot scopes");

  const appHome = objectAt(features.app_home);
  if (appHome) {
    unknownKeys(appHome, APP_HOME_KEYS, "/features/app_home");
    if (appHome.messages_tab_enabled === true && !botUser)
      problem("/features/app_home/messages_tab_enabled", "The Messages tab needs a bot user");
  }

  const commands = features.slash_commands;
  if (commands !== undefined) {
    if (!Array.isArray(commands) || commands.length === 0 || commands.length > 50)
      problem("/features/slash_commands", "Must be a list of 1 to 50 commands");
    else if (!botScopes.includes("commands"))
      problem("/features/slash_commands", "Slash commands need the commands scope");
    (Array.isArray(commands) ? commands : []).forEach((entry: unknown, index) => {
      const at = `/features/slash_commands/${index}`;
      const command = objectAt(entry);
      if (!command) {
        problem(at, "Must be an object");
        return;
      }
      unknownKeys(command, SLASH_COMMAND_KEYS, at);
      const text = command.command;
      if (typeof text !== "string" || !/^\/\S{1,31}$/.test(text))
        problem(`${at}/command`, "Must start with / and have 2 to 32 characters, no spaces");
      if (command.description === undefined) problem(`${at}/description`, "Required property: description");
      optionalString(command, "description", at, 2000);
      optionalString(command, "usage_hint", at, 1000);
      httpUrl(command, "url", at);
      if (command.url === undefined && !socketMode)
        problem(`${at}/url`, "A slash command needs a Request URL unless Socket Mode is enabled");
    });
  }

  const events = objectAt(settings.event_subscriptions);
  if (events) {
    const at = "/settings/event_subscriptions";
    unknownKeys(events, ["request_url", "bot_events", "user_events", "metadata_subscriptions"], at);
    httpUrl(events, "request_url", at);
    if (events.request_url === undefined && !socketMode)
      problem(at, "Event Subscription requires either Request URL or Socket Mode Enabled");
    const botEvents = stringsAt(events.bot_events);
    if (new Set(botEvents).size !== botEvents.length || botEvents.length > 100)
      problem(`${at}/bot_events`, "Must be at most 100 unique events");
    botEvents.forEach((event, index) => {
      if (!BOT_EVENT_SCOPES.has(event)) {
        problem(`${at}/bot_events/${index}`, `Unknown event: ${event}`);
        return;
      }
      const scope = BOT_EVENT_SCOPES.get(event);
      if (scope !== undefined && !botScopes.includes(scope))
        problem(`${at}/bot_events/${index}`, `Event ${event} needs the ${scope} scope`);
    });
  }

  const interactivity = objectAt(settings.interactivity);
  if (interactivity) {
    const at = "/settings/interactivity";
    unknownKeys(interactivity, ["is_enabled", "request_url", "message_menu_options_url"], at);
    if (typeof interactivity.is_enabled !== "boolean")
      problem(`${at}/is_enabled`, "Required property: is_enabled");
    httpUrl(interactivity, "request_url", at);
    if (interactivity.is_enabled === true && interactivity.request_url === undefined && !socketMode)
      problem(at, "Interactivity requires either Request URL or Socket Mode Enabled");
  }
  for (const flag of ["org_deploy_enabled", "socket_mode_enabled", "token_rotation_enabled"])
    if (settings[flag] !== undefined && typeof settings[flag] !== "boolean")
      problem(`/settings/${flag}`, "Must be true or false");
  return problems;
}
