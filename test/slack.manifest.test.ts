/**
 * The app manifest `switchboard manifest slack` prints is one Slack accepts: each variant (Socket
 * Mode, HTTP events, DMs off with another slash command) is sent through the real @slack/web-api
 * client to the stand-in's `apps.manifest.validate`, which checks it by Slack's documented rules
 * (listed in support/slack/manifest-validation.ts: known keys and limits from the app manifest
 * reference and Slack's published manifest schema, known scopes, each bot event's scope, Request
 * URLs unless Socket Mode). A broken manifest is refused with Slack's `errors[].pointer`.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WebClient } from "@slack/web-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testContext } from "../packages/cli/src/cli-test-context.ts";
import { runCli } from "../packages/cli/src/run-cli.ts";
import { FakeSlack } from "./support/slack/fake-slack.ts";
import type { ManifestProblem } from "./support/slack/manifest-validation.ts";
import { CONFIG_TOKEN } from "./support/slack/web-api-stand-in.ts";

type Manifest = Record<string, unknown>;
/** The client's own manifest type: checked here by the stand-in instead, so any shape may be sent. */
type SentManifest = Parameters<WebClient["apps"]["manifest"]["validate"]>[0]["manifest"];

let slack: FakeSlack;
let client: WebClient;
const folders: string[] = [];

beforeAll(async () => {
  slack = await FakeSlack.start({ transport: "http" });
  client = new WebClient(CONFIG_TOKEN, { slackApiUrl: slack.api.apiUrl, retryConfig: { retries: 0 } });
});
afterAll(async () => {
  await slack?.close();
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
});

async function printed(flags: string[], config?: string): Promise<Manifest> {
  const cwd = await mkdtemp(join(tmpdir(), "switchboard-manifest-"));
  folders.push(cwd);
  if (config !== undefined) await writeFile(join(cwd, "switchboard.yaml"), config);
  // A slack: section is only valid with its tokens; the manifest does not use them.
  const env = { SWITCHBOARD_SLACK_BOT_TOKEN: "xoxb-unused", SWITCHBOARD_SLACK_APP_TOKEN: "xapp-unused" };
  const run = testContext({ cwd, env });
  expect(await runCli(["manifest", "slack", ...flags], run.context), run.stderr.text).toBe(0);
  return JSON.parse(run.stdout.text) as Manifest;
}

/** What Slack answers: nothing for a valid manifest, else its errors. */
async function validate(manifest: Manifest): Promise<ManifestProblem[]> {
  try {
    await client.apps.manifest.validate({ manifest: manifest as SentManifest });
    return [];
  } catch (error) {
    const data = (error as { data?: { error?: string; errors?: ManifestProblem[] } }).data;
    expect(data?.error).toBe("invalid_manifest");
    return data?.errors ?? [];
  }
}

/** A copy with one change at a path (keys, or array indexes as numbers). */
function changed(manifest: Manifest, path: (string | number)[], value: unknown): Manifest {
  const copy = structuredClone(manifest);
  let at: Record<string | number, unknown> = copy;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string | number, unknown>;
  const last = path.at(-1) as string | number;
  if (value === undefined) delete at[last];
  else at[last] = value;
  return copy;
}

describe("the Slack app manifest, checked by Slack's rules", () => {
  it("every variant `manifest slack` prints is accepted", async () => {
    const variants = {
      socket: await printed([]),
      http: await printed([
        "--slack-mode",
        "http",
        "--slack-request-url",
        "https://bots.example.com/slack/events",
      ]),
      "no DMs, /ask": await printed([], "slack:\n  directMessages: false\n  slashCommand: /ask\n"),
    };
    for (const [variant, manifest] of Object.entries(variants))
      expect({ variant, errors: await validate(manifest) }).toEqual({ variant, errors: [] });
    expect(variants.socket.settings).toMatchObject({ socket_mode_enabled: true });
    expect(variants.http.settings).toMatchObject({ socket_mode_enabled: false });
    expect(variants["no DMs, /ask"]).toMatchObject({
      features: { slash_commands: [{ command: "/ask" }] },
      settings: {
        event_subscriptions: { bot_events: ["app_mention", "message.channels", "message.groups"] },
      },
    });
  }, 60_000);

  it("refuses a broken manifest with the pointer to what is wrong", async () => {
    const socket = await printed([]);
    const http = await printed([
      "--slack-mode",
      "http",
      "--slack-request-url",
      "https://bots.example.com/slack/events",
    ]);
    const scopes = (socket.oauth_config as { scopes: { bot: string[] } }).scopes.bot;
    const cases: { name: string; manifest: Manifest; pointer: string; message: RegExp }[] = [
      {
        name: "a name over 35 characters",
        manifest: changed(socket, ["display_information", "name"], "S".repeat(36)),
        pointer: "/display_information/name",
        message: /35 characters/,
      },
      {
        name: "no name",
        manifest: changed(socket, ["display_information", "name"], undefined),
        pointer: "/display_information/name",
        message: /Required/,
      },
      {
        name: "an unknown top-level key",
        manifest: { ...socket, webhooks: true },
        pointer: "/webhooks",
        message: /Unknown property/,
      },
      {
        name: "bot scopes without a bot user",
        manifest: changed(socket, ["features", "bot_user"], undefined),
        pointer: "/features/bot_user",
        message: /bot user/,
      },
      {
        name: "an unknown scope",
        manifest: changed(socket, ["oauth_config", "scopes", "bot"], [...scopes, "chat:shout"]),
        pointer: `/oauth_config/scopes/bot/${scopes.length}`,
        message: /Invalid scope: chat:shout/,
      },
      {
        name: "a DM event without im:history",
        manifest: changed(
          socket,
          ["oauth_config", "scopes", "bot"],
          scopes.filter((scope) => scope !== "im:history"),
        ),
        pointer: "/settings/event_subscriptions/bot_events/3",
        message: /message\.im needs the im:history scope/,
      },
      {
        name: "an unknown event",
        manifest: changed(
          socket,
          ["settings", "event_subscriptions", "bot_events"],
          ["app_mention", "message.everything"],
        ),
        pointer: "/settings/event_subscriptions/bot_events/1",
        message: /Unknown event/,
      },
      {
        name: "a slash command without the commands scope",
        manifest: changed(
          socket,
          ["oauth_config", "scopes", "bot"],
          scopes.filter((scope) => scope !== "commands"),
        ),
        pointer: "/features/slash_commands",
        message: /commands scope/,
      },
      {
        name: "HTTP mode's slash command without its URL",
        manifest: changed(http, ["features", "slash_commands", 0, "url"], undefined),
        pointer: "/features/slash_commands/0/url",
        message: /Request URL unless Socket Mode/,
      },
      {
        name: "events without a Request URL or Socket Mode",
        manifest: changed(http, ["settings", "event_subscriptions", "request_url"], undefined),
        pointer: "/settings/event_subscriptions",
        message: /Request URL or Socket Mode/,
      },
      {
        name: "interactivity without a Request URL or Socket Mode",
        manifest: changed(socket, ["settings", "socket_mode_enabled"], false),
        pointer: "/settings/interactivity",
        message: /Request URL or Socket Mode/,
      },
      {
        name: "org_deploy_enabled not a boolean",
        manifest: changed(socket, ["settings", "org_deploy_enabled"], "no"),
        pointer: "/settings/org_deploy_enabled",
        message: /true or false/,
      },
    ];
    for (const { name, manifest, pointer, message } of cases) {
      const errors = await validate(manifest);
      const found = errors.find((error) => error.pointer === pointer);
      expect({ name, found: found !== undefined, errors }).toMatchObject({ name, found: true });
      expect(found?.message).toMatch(message);
    }
  }, 60_000);

  it("accepts Slack's own Bolt template manifest and needs the configuration token", async () => {
    // The shape of Slack's Bolt template app (socket mode, a shortcut-free subset).
    const template: Manifest = {
      _metadata: { major_version: 1, minor_version: 1 },
      display_information: { name: "Bolt Template App" },
      features: {
        app_home: {
          home_tab_enabled: true,
          messages_tab_enabled: false,
          messages_tab_read_only_enabled: true,
        },
        bot_user: { display_name: "Bolt Template App", always_online: false },
        slash_commands: [
          { command: "/sample-command", description: "Runs a sample command", should_escape: false },
        ],
      },
      oauth_config: { scopes: { bot: ["channels:history", "chat:write", "commands"] } },
      settings: {
        event_subscriptions: { bot_events: ["app_home_opened", "message.channels"] },
        interactivity: { is_enabled: true },
        org_deploy_enabled: false,
        socket_mode_enabled: true,
        token_rotation_enabled: false,
      },
    };
    expect(await validate(template)).toEqual([]);
    const withBot = new WebClient("xoxb-not-a-config-token", {
      slackApiUrl: slack.api.apiUrl,
      retryConfig: { retries: 0 },
    });
    await expect(withBot.apps.manifest.validate({ manifest: template as SentManifest })).rejects.toThrow(
      /invalid_auth/,
    );
  });
});
