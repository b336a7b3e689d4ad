import type { CommandSummary } from "@switchboard/core/adapter";
import { neededScopes, subscribedEvents } from "@switchboard/slack/setup";
import { stringify } from "yaml";

/** An app manifest as Slack's "Create New App → From a manifest" takes it (JSON form). */
export interface SlackManifest {
  readonly display_information: { readonly name: string; readonly description: string };
  readonly features: {
    readonly app_home: {
      readonly home_tab_enabled: boolean;
      readonly messages_tab_enabled: boolean;
      readonly messages_tab_read_only_enabled: boolean;
    };
    readonly bot_user: { readonly display_name: string; readonly always_online: boolean };
    readonly slash_commands: readonly {
      readonly command: string;
      readonly description: string;
      readonly usage_hint: string;
      readonly should_escape: boolean;
      readonly url?: string;
    }[];
  };
  readonly oauth_config: { readonly scopes: { readonly bot: readonly string[] } };
  readonly settings: {
    readonly event_subscriptions: { readonly bot_events: readonly string[]; readonly request_url?: string };
    readonly interactivity: { readonly is_enabled: boolean; readonly request_url?: string };
    readonly org_deploy_enabled: boolean;
    readonly socket_mode_enabled: boolean;
    readonly token_rotation_enabled: boolean;
  };
}

export interface ManifestOptions {
  /** The app's name in Slack (also the bot's display name, lower-cased). */
  readonly name: string;
  readonly slashCommand: string;
  /** The chat commands the engine answers; named in the slash command's usage hint. */
  readonly commands: readonly CommandSummary[];
  readonly directMessages: boolean;
  /** Socket Mode (no public URL), or HTTP events to this Request URL. */
  readonly connection: { readonly mode: "socket" } | { readonly mode: "http"; readonly requestUrl: string };
}

/** Slack's limit on a slash command's usage hint. */
const USAGE_HINT_LIMIT = 1000;

/**
 * The manifest of an app that has exactly what the adapter uses: the bot scopes it checks for
 * (required and recommended, from the adapter's own list), the events it listens to, one slash
 * command, interactivity for the Approve / Deny buttons, and Socket Mode or HTTP Request URLs.
 */
export function slackManifest(options: ManifestOptions): SlackManifest {
  const { required, recommended } = neededScopes({
    directMessages: options.directMessages,
    reactions: true,
  });
  const url = options.connection.mode === "http" ? { url: options.connection.requestUrl } : {};
  const requestUrl = options.connection.mode === "http" ? { request_url: options.connection.requestUrl } : {};
  const names = options.commands.map((command) => command.name);
  const hint = `[${[...names, "a question"].join(" | ")}]`;
  return {
    display_information: {
      name: options.name,
      description: "A team of AI agents: mention it, DM it, or use the slash command.",
    },
    features: {
      app_home: {
        home_tab_enabled: false,
        messages_tab_enabled: options.directMessages,
        messages_tab_read_only_enabled: false,
      },
      bot_user: { display_name: options.name.toLowerCase().replaceAll(/\s+/g, "-"), always_online: true },
      slash_commands: [
        {
          command: options.slashCommand,
          description: "Ask the team privately, or run a command (help, status, reset…)",
          usage_hint: hint.length <= USAGE_HINT_LIMIT ? hint : `${hint.slice(0, USAGE_HINT_LIMIT - 2)}…]`,
          should_escape: false,
          ...url,
        },
      ],
    },
    oauth_config: { scopes: { bot: [...required, ...recommended] } },
    settings: {
      event_subscriptions: { bot_events: subscribedEvents(options), ...requestUrl },
      interactivity: { is_enabled: true, ...requestUrl },
      org_deploy_enabled: false,
      socket_mode_enabled: options.connection.mode === "socket",
      token_rotation_enabled: false,
    },
  };
}

/** The one link that opens Slack's "create an app" dialog with the manifest filled in. */
export function manifestLink(manifest: SlackManifest): string {
  return `https://api.slack.com/apps?new_app=1&manifest_json=${encodeURIComponent(JSON.stringify(manifest))}`;
}

/** The manifest as YAML, for reading (Slack takes either form). */
export function manifestYaml(manifest: SlackManifest): string {
  return stringify(manifest, { lineWidth: 0 }).trimEnd();
}
