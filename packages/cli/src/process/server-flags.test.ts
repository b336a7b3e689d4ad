import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ENV_OVERRIDES } from "../config/env-overrides.ts";
import { ASYNC_CONTEXT_FRAME_FLAG, SEMI_SPACE_FLAG, serverFlagArgs } from "./server-flags.ts";

const MAIN = fileURLToPath(new URL("../main.ts", import.meta.url));

const node = (version: string, execArgv: string[] = [], env: NodeJS.ProcessEnv = {}) => ({
  versions: { node: version },
  execArgv,
  argv: ["/usr/bin/node", "/opt/switchboard/main.js", "start", "--config", "s.yaml"],
  execPath: "/usr/bin/node",
  env,
});

describe("running start with the flags a server wants", () => {
  it("on Node 22 runs the same command again with both flags first, keeping the other node flags", () => {
    expect(serverFlagArgs(node("22.23.3", ["--cpu-prof"]))).toEqual([
      "/usr/bin/node",
      ASYNC_CONTEXT_FRAME_FLAG,
      SEMI_SPACE_FLAG,
      "--cpu-prof",
      "/opt/switchboard/main.js",
      "start",
      "--config",
      "s.yaml",
    ]);
  });

  it("on Node 24 and later adds only the young generation's size (AsyncContextFrame is the default, the flag refused)", () => {
    expect(serverFlagArgs(node("24.11.0"))?.slice(0, 3)).toEqual([
      "/usr/bin/node",
      SEMI_SPACE_FLAG,
      "/opt/switchboard/main.js",
    ]);
    expect(serverFlagArgs(node("26.0.0"))).not.toContain(ASYNC_CONTEXT_FRAME_FLAG);
  });

  it("keeps what the operator gave, on the command line or in NODE_OPTIONS, in any spelling", () => {
    expect(serverFlagArgs(node("22.23.3", [ASYNC_CONTEXT_FRAME_FLAG, SEMI_SPACE_FLAG]))).toBeUndefined();
    expect(
      serverFlagArgs(
        node("22.23.3", ["--max_semi_space_size=8"], {
          NODE_OPTIONS: `--max-old-space-size=512 ${ASYNC_CONTEXT_FRAME_FLAG}`,
        }),
      ),
    ).toBeUndefined();
    expect(serverFlagArgs(node("24.11.0", [], { NODE_OPTIONS: "--max-semi-space-size=16" }))).toBeUndefined();
    // A different option that starts alike is not the same option.
    expect(serverFlagArgs(node("24.11.0", ["--max-semi-space-sizes=1"]))).toContain(SEMI_SPACE_FLAG);
  });

  it.runIf(process.platform === "linux")(
    "the started process (same process id) runs with the flags, and answers and stops as before",
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
        expect(commandLine).toContain(SEMI_SPACE_FLAG);
        expect(commandLine).toContain("--disable-warning=ExperimentalWarning");
        expect(commandLine.slice(-2)).toEqual([MAIN, "start"]);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  );
});
