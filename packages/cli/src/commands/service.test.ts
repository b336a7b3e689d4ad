import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { testContext } from "../cli-test-context.ts";
import { runCli } from "../run-cli.ts";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "switchboard-service-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function execStartOf(unit: string): string {
  return unit.split("\n").find((line) => line.startsWith("ExecStart=")) ?? "";
}

describe("switchboard service", () => {
  it("prints a unit that starts this CLI with this Node, from here, on the configuration file", async () => {
    await writeFile(join(dir, "switchboard.yaml"), "engine:\n  lockTtlSeconds: 45\n");
    const { context, stdout, stderr } = testContext({ cwd: dir });
    expect(await runCli(["service", "--user", "bots"], context)).toBe(0);
    expect(stderr.text).toBe("");
    expect(stdout.text).toMatch(/^\[Unit\]\n/);
    expect(stdout.text).toContain(`\nWorkingDirectory=${dir}\n`);
    expect(stdout.text).toContain("\nUser=bots\n");
    expect(stdout.text).toContain("\nTimeoutStopSec=45s\n");
    expect(execStartOf(stdout.text)).toBe(
      `ExecStart=${process.execPath} --disable-warning=ExperimentalWarning ${join(import.meta.dirname, "..", "main.ts")} start --config ${join(dir, "switchboard.yaml")}`,
    );
  });

  it("without a configuration file runs start on the built-in defaults, with their lock TTL", async () => {
    const { context, stdout } = testContext({ cwd: dir });
    expect(await runCli(["service", "--user", "bots"], context)).toBe(0);
    expect(execStartOf(stdout.text)).toMatch(/main\.ts start$/);
    expect(stdout.text).toContain("\nTimeoutStopSec=30s\n");
  });

  it("takes the secrets file from --env-file, relative to here", async () => {
    const { context, stdout } = testContext({ cwd: dir });
    expect(await runCli(["service", "--user", "bots", "--env-file", "secrets/sb.env"], context)).toBe(0);
    expect(stdout.text).toContain(`\nEnvironmentFile=${join(dir, "secrets", "sb.env")}\n`);
  });

  it("--write writes the unit (creating folders) and says what to do next", async () => {
    const { context, stdout, stderr } = testContext({ cwd: dir });
    const target = join(dir, "units", "switchboard.service");
    expect(await runCli(["service", "--user", "bots", "--write", target], context)).toBe(0);
    expect(stdout.text).toBe(`wrote ${target}\n`);
    const { context: printing, stdout: printed } = testContext({ cwd: dir });
    await runCli(["service", "--user", "bots"], printing);
    expect(await readFile(target, "utf8")).toBe(printed.text);
    expect((await stat(target)).mode & 0o777).toBe(0o644);
    expect(stderr.text).toContain("systemctl daemon-reload && systemctl enable --now switchboard.service");
    expect(stderr.text).toContain("install -m 600 -o bots /dev/null /etc/switchboard/switchboard.env");
  });

  it("refuses to make a unit that runs as root", async () => {
    const { context, stdout, stderr } = testContext({ cwd: dir });
    expect(await runCli(["service", "--user", "root"], context)).toBe(2);
    expect(stdout.text).toBe("");
    expect(stderr.text).toContain("refusing to run Switchboard as root");
  });

  it("lists configuration problems instead of writing a unit for a broken configuration", async () => {
    await writeFile(join(dir, "switchboard.yaml"), "engine:\n  lockTtlSeconds: soon\n");
    const target = join(dir, "switchboard.service");
    const { context, stderr } = testContext({ cwd: dir });
    expect(await runCli(["service", "--write", target], context)).toBe(2);
    expect(stderr.text).toContain("engine.lockTtlSeconds: expected a number");
    await expect(stat(target)).rejects.toThrow(/ENOENT/);
  });

  it.each([
    ["--write", "x.service"],
    ["--user", "bots"],
    ["--env-file", "x.env"],
  ])("refuses %s with another command", async (flag, value) => {
    const { context, stderr } = testContext({ cwd: dir });
    expect(await runCli(["doctor", flag, value], context)).toBe(2);
    expect(stderr.text).toContain(`${flag} only applies to service`);
  });
});
