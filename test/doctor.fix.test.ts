/**
 * `switchboard doctor --fix`: what it repairs (the env file's mode, the data folder and its mode,
 * Discord slash commands that are not registered — against the Discord stand-in) and what it says
 * it cannot (a rejected token, Matrix device keys).
 */
import { chmod, mkdir, mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { testContext } from "../packages/cli/src/cli-test-context.ts";
import { notFixed } from "../packages/cli/src/commands/doctor-fix.ts";
import { readExampleConfig } from "../packages/cli/src/config/example-config.ts";
import { loadConfig } from "../packages/cli/src/config/load-config.ts";
import { runCli } from "../packages/cli/src/run-cli.ts";
import { FakeDiscord } from "./support/discord/fake-discord.ts";

let cwd: string;
let discord: FakeDiscord;
beforeEach(async () => {
  cwd = await mkdtemp(join(tmpdir(), "switchboard-fix-"));
  discord = await FakeDiscord.start();
});
afterEach(async () => {
  await discord.close();
  await rm(cwd, { recursive: true, force: true });
});

const modeOf = async (path: string) => ((await stat(path)).mode & 0o777).toString(8);

async function doctor(...flags: string[]) {
  const run = testContext({ cwd, env: {} });
  const code = await runCli(["doctor", "--offline", ...flags], run.context);
  return { code, text: run.stdout.text };
}

async function writeConfig(discordSection: string, token: string): Promise<void> {
  await writeFile(join(cwd, "switchboard.yaml"), `${await readExampleConfig()}\n${discordSection}`);
  await writeFile(join(cwd, "switchboard.env"), `SWITCHBOARD_DISCORD_TOKEN=${token}\n`, { mode: 0o644 });
  await chmod(join(cwd, "switchboard.env"), 0o644);
}

describe("switchboard doctor --fix", () => {
  it("tightens the env file, creates the data folder and registers missing slash commands", async () => {
    await writeConfig(
      `discord:\n  apiUrl: ${discord.apiUrl}\n  commandGuildIds: ["${discord.world.guildId}"]\n`,
      discord.token,
    );

    const before = await doctor();
    expect(before.code).toBe(1);
    expect(before.text).toContain("switchboard.env holds secrets but others may read it (mode 644)");
    expect(before.text).toContain("ok       files: the data folder data does not exist yet");
    expect(before.text).toMatch(
      /problem +discord: slash commands missing: server \d+ lacks \/supervisor.*\/help/,
    );
    expect(discord.desk.commands.get(discord.world.guildId)).toBeUndefined();

    await rm(join(cwd, "data"), { recursive: true, force: true }); // doctor's store check made it
    const fixed = await doctor("--fix");
    expect(fixed.text).toContain("fixed: switchboard.env was mode 644, now 600");
    expect(fixed.text).toContain("fixed: created the data folder data");
    expect(fixed.text).toMatch(/fixed: registered \d+ slash commands/);
    expect(fixed.code).toBe(0);
    expect(await modeOf(join(cwd, "switchboard.env"))).toBe("600");
    expect(await modeOf(join(cwd, "data"))).toBe("700");
    const names = discord.desk.commands.get(discord.world.guildId)?.map((command) => command.name);
    expect(names).toEqual(expect.arrayContaining(["help", "reset", "approve", "memory", "usage"]));

    const after = await doctor();
    expect(after.code).toBe(0);
    expect(after.text).toContain("switchboard.env is private (mode 600)");
    expect(after.text).toMatch(/ok +discord: slash commands registered/);
  }, 60_000);

  it("closes a data folder everyone may read", async () => {
    await writeConfig("", discord.token);
    await mkdir(join(cwd, "data"));
    await chmod(join(cwd, "data"), 0o777);
    expect((await doctor()).text).toContain(
      "everyone on this machine may read the data folder data (mode 777)",
    );
    expect((await doctor("--fix")).text).toContain("fixed: the data folder data was mode 777, now 700");
    expect(await modeOf(join(cwd, "data"))).toBe("700");
  }, 60_000);

  it("says what it could not repair", async () => {
    await writeConfig(`discord:\n  apiUrl: ${discord.apiUrl}\n  globalCommands: true\n`, "not-the-token");
    const result = await doctor("--fix");
    expect(result.code).toBe(1);
    expect(result.text).toContain("Discord rejected the bot token");
    expect(result.text).toContain("--fix could not repair the");
    expect(discord.desk.commands.get("global")).toBeUndefined();

    await writeFile(
      join(cwd, "switchboard.yaml"),
      `matrix:\n  homeserverUrl: https://matrix.example.org\n  encryption: true\n`,
    );
    const loaded = await loadConfig({ cwd, env: { SWITCHBOARD_MATRIX_ACCESS_TOKEN: "token" } });
    expect(notFixed(loaded)).toEqual([
      expect.objectContaining({
        name: "matrix",
        status: "skipped",
        detail: expect.stringContaining("does not re-upload Matrix device keys"),
      }),
    ]);
  }, 60_000);
});
