/**
 * `switchboard start` as operators run it: SIGHUP reloads switchboard.yaml and never ends the
 * process; an invalid file is refused in the log and the process goes on answering.
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { waitFor } from "@switchboard/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { ENV_OVERRIDES } from "./config/env-overrides.ts";

const MAIN = fileURLToPath(new URL("./main.ts", import.meta.url));

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("start and SIGHUP", () => {
  it("reloads on SIGHUP, refuses an invalid file, and keeps running", { timeout: 60_000 }, async () => {
    dir = await mkdtemp(join(tmpdir(), "switchboard-sighup-"));
    const file = join(dir, "switchboard.yaml");
    await writeFile(file, "logFormat: json\nlimits:\n  maxIterations: 10\n");
    const env = { ...process.env };
    for (const { variable } of ENV_OVERRIDES) delete env[variable];
    const child = spawn("node", ["--disable-warning=ExperimentalWarning", MAIN, "start"], {
      cwd: dir,
      env,
      stdio: "pipe",
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const closed = new Promise<number | null>((resolve) => child.on("close", resolve));
    await waitFor(
      "the process to start",
      () => stderr.includes("the configuration reloads on SIGHUP"),
      30_000,
    );

    await writeFile(file, "logFormat: json\nlimits:\n  maxIterations: -1\n");
    child.kill("SIGHUP");
    await waitFor("the refusal", () => stderr.includes("configuration not reloaded"), 15_000);
    expect(stderr).toContain("limits.maxIterations");

    await writeFile(file, "logFormat: json\nlimits:\n  maxIterations: 12\n");
    child.kill("SIGHUP");
    await waitFor("the reload", () => stderr.includes('"msg":"configuration reloaded"'), 15_000);
    const reloaded = stderr.split("\n").filter((line) => line.includes('"msg":"configuration reloaded"'));
    expect(reloaded.some((line) => line.includes('"limits.maxIterations"'))).toBe(true);
    // The signal itself reloads (the file's change is noticed too, a moment later).
    await waitFor("a reload by the signal", () => /"trigger":"SIGHUP"/.test(stderr), 15_000);

    // Still answering after both.
    child.stdin.end("hello after reload\n");
    expect(await closed).toBe(0);
    expect(stdout).toContain('You said: "hello after reload"');
  });
});
