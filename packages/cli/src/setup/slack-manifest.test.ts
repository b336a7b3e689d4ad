/**
 * The Slack app manifest setup prints has exactly what the adapter uses: the scopes it checks a
 * token for, the events its listeners take, one slash command naming every chat command the engine
 * registers, interactivity for the buttons — and the link carries that manifest.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkScopes } from "@switchboard/slack/setup";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testContext } from "../cli-test-context.ts";
import { loadConfig } from "../config/load-config.ts";
import { runCli } from "../run-cli.ts";
import { registeredCommands } from "./registered-commands.ts";
import { manifestLink, type SlackManifest, slackManifest } from "./slack-manifest.ts";

let cwd: string;
beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), "switchboard-manifest-"));
});
afterAll(async () => {
  await rm(cwd, { recursive: true, force: true });
});

describe("the Slack app manifest", () => {
  it("asks for exactly the scopes the adapter checks, and subscribes to the events it listens to", async () => {
    const loaded = await loadConfig({ cwd, env: {} });
    const commands = await registeredCommands(loaded, cwd);
    const manifest = slackManifest({
      name: "Switchboard",
      slashCommand: "/switchboard",
      commands,
      directMessages: true,
      connection: { mode: "socket" },
    });
    const scopes = manifest.oauth_config.scopes.bot;
    // Nothing the adapter needs is missing, nothing is asked for that it does not use.
    expect(checkScopes(scopes, { directMessages: true, reactions: true })).toEqual({
      missingRequired: [],
      missingRecommended: [],
    });
    expect([...scopes].sort()).toEqual(
      [
        "app_mentions:read",
        "channels:history",
        "chat:write",
        "commands",
        "files:read",
        "files:write",
        "groups:history",
        "im:history",
        "reactions:write",
        "users:read",
      ].sort(),
    );
    for (const scope of scopes)
      expect(
        checkScopes(
          scopes.filter((other) => other !== scope),
          { directMessages: true, reactions: true },
        ),
      ).not.toEqual({ missingRequired: [], missingRecommended: [] });
    // The listeners take app_mention and message; message arrives per kind of place subscribed.
    expect(manifest.settings.event_subscriptions.bot_events).toEqual([
      "app_mention",
      "message.channels",
      "message.groups",
      "message.im",
    ]);
    expect(manifest.settings.socket_mode_enabled).toBe(true);
    expect(manifest.settings.interactivity.is_enabled).toBe(true);
    expect(manifest.settings.event_subscriptions.request_url).toBeUndefined();
    const [command] = manifest.features.slash_commands;
    expect(command?.command).toBe("/switchboard");
    // Every chat command the engine registers is named in the hint, from the registry itself.
    expect(commands.map((c) => c.name)).toEqual(
      expect.arrayContaining(["help", "reset", "approve", "memory"]),
    );
    for (const { name } of commands) expect(command?.usage_hint).toContain(name);

    const link = new URL(manifestLink(manifest));
    expect(`${link.origin}${link.pathname}`).toBe("https://api.slack.com/apps");
    expect(link.searchParams.get("new_app")).toBe("1");
    expect(JSON.parse(link.searchParams.get("manifest_json") ?? "")).toEqual(manifest);
  }, 30_000);

  it("in HTTP mode points events, the slash command and interactivity at the Request URL; without DMs drops im", () => {
    const manifest = slackManifest({
      name: "Switchboard",
      slashCommand: "/ask",
      commands: [],
      directMessages: false,
      connection: { mode: "http", requestUrl: "https://bots.example.com/slack/events" },
    });
    expect(manifest.settings.socket_mode_enabled).toBe(false);
    expect(manifest.settings.event_subscriptions).toEqual({
      bot_events: ["app_mention", "message.channels", "message.groups"],
      request_url: "https://bots.example.com/slack/events",
    });
    expect(manifest.settings.interactivity.request_url).toBe("https://bots.example.com/slack/events");
    expect(manifest.features.slash_commands[0]?.url).toBe("https://bots.example.com/slack/events");
    expect(manifest.oauth_config.scopes.bot).not.toContain("im:history");
    expect(manifest.features.app_home.messages_tab_enabled).toBe(false);
  });

  it("`switchboard manifest slack` prints it as JSON and the link on stderr", async () => {
    const run = testContext({ cwd, env: {} });
    expect(await runCli(["manifest", "slack"], run.context)).toBe(0);
    const printed = JSON.parse(run.stdout.text) as SlackManifest;
    expect(printed.oauth_config.scopes.bot).toContain("app_mentions:read");
    expect(run.stderr.text).toContain("https://api.slack.com/apps?new_app=1&manifest_json=");
    const http = testContext({ cwd, env: {} });
    expect(await runCli(["manifest", "slack", "--slack-mode", "http"], http.context)).toBe(2);
    expect(http.stderr.text).toContain("--slack-request-url");
    const wrong = testContext({ cwd, env: {} });
    expect(await runCli(["manifest", "discord"], wrong.context)).toBe(2);
  }, 30_000);
});
