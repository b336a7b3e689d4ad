/**
 * Agents know when and where they are: the real `switchboard start` on the offline model, asked for
 * the date, quotes the line every agent's prompt ends with — the date and time in the person's zone
 * (the configured default, then their own /timezone), and the place.
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { ENV_OVERRIDES } from "./config/env-overrides.ts";

const MAIN = fileURLToPath(new URL("./main.ts", import.meta.url));

function start(cwd: string, input: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env = { ...process.env };
  for (const { variable } of ENV_OVERRIDES) delete env[variable];
  return new Promise((resolve, reject) => {
    const child = spawn("node", ["--disable-warning=ExperimentalWarning", MAIN, "start"], {
      cwd,
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
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

/** "Tuesday, 11 March 2025" today in `zone`, as the prompt's line writes it. */
function today(zone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-GB", {
      timeZone: zone,
      weekday: "long",
      day: "numeric",
      month: "long",
      year: "numeric",
    })
      .formatToParts(Date.now())
      .map((part) => [part.type, part.value]),
  );
  return `${parts.weekday}, ${parts.day} ${parts.month} ${parts.year}`;
}

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe("the date agents see", () => {
  it("the offline model, asked for the date, quotes its prompt's line: the default zone, then the person's own", async () => {
    const dir = await mkdtemp(join(tmpdir(), "switchboard-date-"));
    dirs.push(dir);
    await writeFile(join(dir, "switchboard.yaml"), "defaults:\n  timeZone: America/New_York\n");
    const run = await start(
      dir,
      "what is the date today?\n/timezone Asia/Tokyo\nwhat time is it?\n/timezone\n/timezone Mars/Base\n",
    );
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.trimEnd().split("\n");
    const answers = lines.filter((line) => !line.includes("you>"));
    expect(answers[0]).toMatch(
      new RegExp(
        `^\\[main\\] supervisor \\([\\w-]+\\)> \\[offline model\\] supervisor here\\. Current date and time: ${today("America/New_York")}, \\d{2}:\\d{2} \\(America/New_York, GMT-0[45]:00\\)\\. You are on the terminal console\\.$`,
      ),
    );
    expect(answers[1]).toContain("Your time zone is now Asia/Tokyo.");
    expect(answers[2]).toMatch(
      new RegExp(
        `Current date and time: ${today("Asia/Tokyo")}, \\d{2}:\\d{2} \\(Asia/Tokyo, GMT\\+09:00\\)\\.`,
      ),
    );
    expect(answers[3]).toContain("Your time zone is Asia/Tokyo (your setting).");
    expect(answers[4]).toContain('"Mars/Base" is not a time zone I know.');
  });

  it("refuses a default time zone that does not exist, naming the setting", async () => {
    const dir = await mkdtemp(join(tmpdir(), "switchboard-date-"));
    dirs.push(dir);
    await writeFile(join(dir, "switchboard.yaml"), "defaults:\n  timeZone: Europe/Atlantis\n");
    const run = await start(dir, "hello\n");
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("defaults.timeZone");
    expect(run.stderr).toContain(
      'expected an IANA time zone such as Europe/Berlin or America/New_York, got "Europe/Atlantis"',
    );
  });
});
