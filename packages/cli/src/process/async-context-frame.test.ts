import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ENV_OVERRIDES } from "../config/env-overrides.ts";
import { ASYNC_CONTEXT_FRAME_FLAG, asyncContextFrameArgs } from "./async-context-frame.ts";

const MAIN = fileURLToPath(new URL("../main.ts", import.meta.url));

const node = (version: string, execArgv: string[] = [], env: NodeJS.ProcessEnv = {}) => ({
  versions: { node: version },
  execArgv,
  argv: ["/usr/bin/node", "/opt/switchboard/main.js", "start", "--config", "s.yaml"],
  execPath: "/usr/bin/node",
  env,
});

describe("running start under AsyncContextFrame", () => {
  it("on Node 22 runs the same command again with the flag first, keeping the other node flags", () => {
    expect(asyncContextFrameArgs(node("22.23.3", ["--cpu-prof"]))).toEqual([
      "/usr/bin/node",
      ASYNC_CONTEXT_FRAME_FLAG,
      "--cpu-prof",
      "/opt/switchboard/main.js",
      "start",
      "--config",
      "s.yaml",
    ]);
  });

  it("leaves a process alone that already has it, or a Node that has it by default (and refuses the flag)", () => {
    expect(asyncContextFrameArgs(node("22.23.3", [ASYNC_CONTEXT_FRAME_FLAG]))).toBeUndefined();
    expect(
      asyncContextFrameArgs(
        node("22.23.3", [], { NODE_OPTIONS: `--max-old-space-size=512 ${ASYNC_CONTEXT_FRAME_FLAG}` }),
      ),
    ).toBeUndefined();
    expect(asyncContextFrameArgs(node("24.11.0"))).toBeUndefined();
    expect(asyncContextFrameArgs(node("26.0.0"))).toBeUndefined();
  });

  it.runIf(process.platform === "linux")(
    "the started process (same process id) runs with the flag on Node 22, and answers and stops as before",
    async () => {
      const dir = await mkdtemp(join(tmpdir(), "switchboard-acf-"));
      const env = { ...process.env };
      for (const { variable } of ENV_OVERRIDES) delete env[variable];
      try {
        const child = spawn("node", ["--disable-warning=ExperimentalWarning", MAIN, "start"], {
          cwd: dir,
          env,
          stdio: "pipe",
        });
        let stdout = "";
        let stderr = "";
        child.stderr.on("data", (chunk: Buffer) => {
          stderr += chunk.toString();
        });
        const answered = new Promise<void>((resolve) => {
          child.stdout.on("data", (chunk: Buffer) => {
            stdout += chunk.toString();
            if (stdout.includes("] supervisor (")) resolve();
          });
        });
        const closed = new Promise<number | null>((resolve) => child.on("close", resolve));
        child.stdin.write("hello\n");
        await answered;
        const commandLine = (await readFile(`/proc/${child.pid}/cmdline`, "utf8"))
          .split("\0")
          .filter(Boolean);
        child.stdin.end();
        expect(await closed, stderr).toBe(0);
        const onNode22 = Number(process.versions.node.split(".")[0]) === 22;
        expect(commandLine.includes(ASYNC_CONTEXT_FRAME_FLAG)).toBe(onNode22);
        expect(commandLine).toContain("--disable-warning=ExperimentalWarning");
        expect(commandLine.slice(-2)).toEqual([MAIN, "start"]);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  );
});
