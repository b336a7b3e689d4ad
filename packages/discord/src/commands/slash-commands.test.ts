import { describe, expect, it } from "vitest";
import { commandText, findSlashCommand, SLASH_COMMANDS, slashCommandBodies } from "./slash-commands.ts";

describe("slash commands", () => {
  it("registers the core commands, with /supervisor and /forget taking an optional word", () => {
    const bodies = slashCommandBodies();
    expect(bodies.map((body) => body.name)).toEqual([
      "supervisor",
      "reset",
      "agents",
      "status",
      "stop",
      "help",
      "approve",
      "deny",
      "memory",
      "forget",
      "usage",
    ]);
    expect(bodies[0]?.options).toEqual([
      expect.objectContaining({ name: "message", required: false, type: 3 }),
    ]);
    for (const body of bodies) {
      expect(body.name).toMatch(/^[a-z]{1,32}$/);
      expect(body.description.length).toBeLessThanOrEqual(100);
    }
  });

  it.each([
    ["supervisor", "show me my invoices", "/supervisor show me my invoices"],
    ["supervisor", null, "/supervisor"],
    ["supervisor", "   ", "/supervisor"],
    ["reset", undefined, "/reset"],
  ])("/%s with %j is the chat text %j", (name, argument, text) => {
    const command = findSlashCommand(name);
    expect(command).toBeDefined();
    if (command) expect(commandText(command, argument)).toBe(text);
  });

  it("answers lists and status privately, conversation changes in the open", () => {
    const ephemeral = SLASH_COMMANDS.filter((command) => command.ephemeral).map((command) => command.name);
    expect(ephemeral).toEqual(["agents", "status", "help", "memory", "usage"]);
  });
});
