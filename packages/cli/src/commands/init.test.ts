import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { testContext } from "../cli-test-context.ts";
import { EXAMPLE_CONFIG_PATH } from "../config/example-config.ts";
import { loadConfig } from "../config/load-config.ts";
import { runCli } from "../run-cli.ts";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "switchboard-init-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("switchboard init", () => {
  it("writes the commented example as ./switchboard.yaml", async () => {
    const { context, stdout } = testContext({ cwd: dir });
    expect(await runCli(["init"], context)).toBe(0);
    const written = await readFile(join(dir, "switchboard.yaml"), "utf8");
    expect(written).toBe(await readFile(EXAMPLE_CONFIG_PATH, "utf8"));
    expect(written).toMatch(/^# Switchboard configuration/);
    expect(stdout.text).toContain("wrote switchboard.yaml");
  });

  it("writes a file that is valid and is exactly what start runs on without a file", async () => {
    const { context } = testContext({ cwd: dir });
    const withoutFile = await loadConfig({ cwd: dir, env: {} });
    await runCli(["init"], context);
    const withFile = await loadConfig({ cwd: dir, env: {} });
    expect(withFile.fileExists).toBe(true);
    expect(withFile.config).toEqual(withoutFile.config);
    expect(withFile.config.model).toEqual({ provider: "offline" });
    expect(withFile.config.team.specialists.map((s) => s.name)).toEqual([
      "billing",
      "tech_support",
      "scheduling",
    ]);
  });

  it("writes where --config says, creating the directory", async () => {
    const { context } = testContext({ cwd: dir });
    expect(await runCli(["init", "--config", "conf/bot.yaml"], context)).toBe(0);
    const loaded = await loadConfig({ cwd: dir, env: {}, path: "conf/bot.yaml" });
    expect(loaded.source).toBe("conf/bot.yaml");
  });

  it("refuses to overwrite an existing file", async () => {
    await writeFile(join(dir, "switchboard.yaml"), "store: redis://127.0.0.1:6379\n");
    const { context, stderr } = testContext({ cwd: dir });
    expect(await runCli(["init"], context)).toBe(1);
    expect(stderr.text).toContain(
      "switchboard.yaml already exists; left it unchanged (use --force to overwrite it)",
    );
    expect(await readFile(join(dir, "switchboard.yaml"), "utf8")).toBe("store: redis://127.0.0.1:6379\n");
  });

  it("overwrites with --force", async () => {
    await writeFile(join(dir, "switchboard.yaml"), "store: redis://127.0.0.1:6379\n");
    const { context } = testContext({ cwd: dir });
    expect(await runCli(["init", "--force"], context)).toBe(0);
    expect(await readFile(join(dir, "switchboard.yaml"), "utf8")).toBe(
      await readFile(EXAMPLE_CONFIG_PATH, "utf8"),
    );
  });
});
