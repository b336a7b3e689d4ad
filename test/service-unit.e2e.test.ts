/**
 * The unit `switchboard service` writes must be one systemd accepts: `systemd-analyze verify`
 * parses it as systemd would load it, checks every key and that ExecStart's program exists.
 */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testContext } from "../packages/cli/src/cli-test-context.ts";
import { runCli } from "../packages/cli/src/run-cli.ts";
import { findOnPath } from "./services/find-binary.ts";

const run = promisify(execFile);
const SYSTEMD_ANALYZE = findOnPath("systemd-analyze");
if (SYSTEMD_ANALYZE === undefined) {
  process.stderr.write(
    "switchboard tests: systemd-analyze not found, so the systemd unit check is skipped (apt-get install systemd)\n",
  );
}

/** What systemd-analyze says about the unit: an empty list when it accepts it without a remark. */
async function verify(unitFile: string): Promise<string[]> {
  const result = await run(SYSTEMD_ANALYZE ?? "systemd-analyze", ["verify", unitFile]).catch(
    (error: { stdout: string; stderr: string }) => ({
      stdout: error.stdout,
      stderr: `${error.stderr}\nexit: failed`,
    }),
  );
  // Remarks about other units on this machine are not ours to judge.
  return `${result.stdout}\n${result.stderr}`
    .split("\n")
    .filter((line) => line.includes(unitFile) || line.startsWith("exit:"));
}

describe.skipIf(SYSTEMD_ANALYZE === undefined)("the systemd unit from `switchboard service`", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "switchboard-unit-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function writtenUnit(cwd: string, args: string[]): Promise<string> {
    const unitFile = join(dir, `switchboard-${Math.random().toString(36).slice(2)}.service`);
    const { context, stderr } = testContext({ cwd });
    expect(await runCli(["service", "--write", unitFile, ...args], context), stderr.text).toBe(0);
    return unitFile;
  }

  it("passes systemd-analyze verify on the built-in defaults", async () => {
    expect(await verify(await writtenUnit(dir, ["--user", "switchboard"]))).toEqual([]);
  });

  it("passes with a configuration file in a folder whose name needs quoting", async () => {
    const folder = join(dir, "my bots 100%");
    await mkdir(folder);
    await writeFile(join(folder, "switchboard.yaml"), "engine:\n  lockTtlSeconds: 60\n");
    expect(
      await verify(await writtenUnit(folder, ["--user", "bots", "--env-file", "my secrets.env"])),
    ).toEqual([]);
  });

  it("the check can fail: a unit with a key systemd does not know is reported", async () => {
    const unitFile = await writtenUnit(dir, ["--user", "switchboard"]);
    await writeFile(
      unitFile,
      (await readFile(unitFile, "utf8")).replace("[Service]\n", "[Service]\nRestartt=always\n"),
    );
    expect((await verify(unitFile)).join("\n")).toContain("Unknown key 'Restartt'");
  });
});
