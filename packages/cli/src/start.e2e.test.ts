/**
 * The real command, as a user runs it: `node packages/cli/src/main.ts start` in a fresh directory,
 * with Node from PATH and stdin piped, no configuration file and no keys.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENV_OVERRIDES } from "./config/env-overrides.ts";

const MAIN = fileURLToPath(new URL("./main.ts", import.meta.url));

interface Finished {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `switchboard start` with `input` on stdin, in `cwd`, without any Switchboard variable from this environment. */
function start(cwd: string, input: string): Promise<Finished> {
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

describe("switchboard start, end to end", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "switchboard-e2e-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("answers on the offline model, hands a billing question to billing, keeps ./data/switchboard.db, exits 0", async () => {
    const run = await start(dir, "hello\nI was charged twice\n");
    expect(run.stderr).toContain(
      "model: offline (built-in, no LLM) — set model: in switchboard.yaml to use a real one",
    );
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.trimEnd().split("\n");
    expect(lines).toEqual([
      "[main] you> hello",
      expect.stringMatching(
        /^\[main\] supervisor \([\w-]+\)> \[offline model\] supervisor here\. You said: "hello"\./,
      ),
      "[main] you> I was charged twice",
      expect.stringMatching(
        /^\[main\] billing \([\w-]+\)> \[offline model\] billing here\. You said: "I was charged twice"\./,
      ),
    ]);
    expect(existsSync(join(dir, "data", "switchboard.db"))).toBe(true);
  });

  it("keeps the conversation across a restart: the same agent, the earlier messages", async () => {
    const run = await start(dir, "/status\nand the refund?\n");
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("Answering here: **billing**");
    expect(run.stdout).toContain("Messages in this conversation: 2.");
    // Sticky: the follow-up goes straight to billing, without the supervisor.
    expect(run.stdout).toMatch(
      /^\[main\] billing \([\w-]+\)> \[offline model\] billing here\. You said: "and the refund\?"/m,
    );
  });
});
