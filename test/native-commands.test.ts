import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger } from "@switchboard/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../packages/cli/src/app/build-app.ts";
import { loadConfig } from "../packages/cli/src/config/load-config.ts";
import { slashCommandBodies, slashCommandsFor } from "../packages/discord/src/commands/slash-commands.ts";
import { createSlackAdapter } from "../packages/slack/src/index.ts";

/**
 * Every chat command the running app registers has a native form on every platform: a Discord
 * slash command and a Slack `@bot word`. A command added to the registry without one fails here.
 */
describe("every registered command is native on every platform", () => {
  let commands: { name: string; usage?: string; summary: string }[];
  let close: () => Promise<void>;

  beforeAll(async () => {
    const cwd = await mkdtemp(join(tmpdir(), "switchboard-commands-"));
    const loaded = await loadConfig({ cwd, env: {} });
    const app = await buildApp({ loaded, logger: silentLogger, cwd, print: () => {}, consoleUser: "ana" });
    commands = app.engine.commands.list();
    close = () => app.close();
  });
  afterAll(async () => {
    await close?.();
  });

  it("registers the core commands docs/reference/commands.md promises", () => {
    const names = commands.map((command) => command.name);
    for (const name of [
      "help",
      "agents",
      "status",
      "supervisor",
      "reset",
      "stop",
      "approve",
      "deny",
      "memory",
      "forget",
    ])
      expect(names).toContain(name);
  });

  it("has a Discord slash command for each, valid by Discord's rules", () => {
    // A command added later is offered too, from its own summary.
    const added = slashCommandsFor([
      ...commands,
      { name: "usage_report", summary: "tokens used", usage: "[day]" },
    ]);
    expect(added.find((command) => command.name === "usage_report")).toMatchObject({
      description: "Tokens used",
      argument: { name: "day" },
    });
    const bodies = slashCommandBodies(slashCommandsFor(commands));
    const registered = bodies.map((body) => body.name);
    for (const command of commands) expect(registered).toContain(command.name);
    for (const body of bodies) {
      expect(body.name).toMatch(/^[-_\p{Ll}\p{N}]{1,32}$/u);
      expect(body.description.length).toBeGreaterThan(0);
      expect(body.description.length).toBeLessThanOrEqual(100);
    }
    // Commands that take words keep them as an option.
    const withArgument = commands.filter((command) => command.usage);
    for (const command of withArgument)
      expect(bodies.find((body) => body.name === command.name)?.options).toHaveLength(1);
  });

  it("has a Slack command word for each, unless the operator lists the words by hand", async () => {
    const adapter = await createSlackAdapter({ botToken: "xoxb-test", appToken: "xapp-test" });
    adapter.useCommands(commands);
    expect([...adapter.commandWords]).toEqual(commands.map((command) => command.name));

    const configured = await createSlackAdapter({
      botToken: "xoxb-test",
      appToken: "xapp-test",
      commandWords: ["help"],
    });
    configured.useCommands(commands);
    expect([...configured.commandWords]).toEqual(["help"]);
  });
});
