/**
 * Ctrl-C twice in the terminal chat while a turn runs: the process exits at once (130), holding the
 * conversation's lock and leaving the turn's request open. The next start, with `/status` piped in,
 * must wait for that lock to expire, answer the interrupted question once, close its request, and
 * only then exit 0 — never exit early with work left, never post "still working" or "timed out".
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ENV_OVERRIDES } from "../../packages/cli/src/config/env-overrides.ts";
import { answer } from "../support/model/chat-request.ts";
import { ModelStub } from "../support/model/model-stub.ts";

const MAIN = fileURLToPath(new URL("../../packages/cli/src/main.ts", import.meta.url));
const LOCK_TTL_SECONDS = 3;

let dir: string;
let stub: ModelStub;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "switchboard-forced-stop-"));
  stub = await ModelStub.start();
  const config = {
    model: stub.modelConfig(),
    store: "sqlite://./data/switchboard.db",
    engine: { lockTtlSeconds: LOCK_TTL_SECONDS },
    memory: { enabled: false },
    team: { supervisor: { prompt: "Answer the user directly." }, specialists: [] },
  };
  await writeFile(join(dir, "switchboard.yaml"), JSON.stringify(config));
});
afterEach(async () => {
  await stub.close();
  await rm(dir, { recursive: true, force: true });
});

interface Started {
  readonly child: ChildProcess;
  readonly output: () => string;
  readonly exited: Promise<number | null>;
}

function startCli(): Started {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const { variable } of ENV_OVERRIDES) delete env[variable];
  const child = spawn("node", ["--disable-warning=ExperimentalWarning", MAIN, "start"], {
    cwd: dir,
    env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, output: () => output, exited };
}

async function until(what: string, check: () => boolean, timeoutMs: number, output: () => string) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`no ${what} within ${timeoutMs} ms:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("the terminal chat after a forced stop", () => {
  it("answers the interrupted question once on the next start, closes its request, then exits 0", {
    timeout: 60_000,
  }, async () => {
    // The first process's model call never ends: it is killed mid-turn.
    stub.script = (request) => (request.index === 0 ? { kind: "hang" } : answer("The answer is 42."));
    const first = startCli();
    first.child.stdin?.write("what is the answer?\n");
    await until("model call", () => stub.received.value === 1, 30_000, first.output);
    first.child.kill("SIGINT");
    // Signals of one kind do not queue: the second is sent once the first was handled.
    await until(
      "the first Ctrl-C handled",
      () => first.output().includes("again to force"),
      10_000,
      first.output,
    );
    first.child.kill("SIGINT");
    expect(await first.exited).toBe(130);

    const second = startCli();
    second.child.stdin?.end("/status\n");
    const code = await Promise.race([
      second.exited,
      new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), 40_000)),
    ]);
    const output = second.output();
    expect(code, output).toBe(0);
    expect(output.match(/The answer is 42\./g) ?? [], output).toHaveLength(1);
    // /status ran after the resumed turn: nothing left open, nothing timed out or "still working".
    expect(output).toContain("/status");
    expect(output).not.toContain("Open requests:");
    expect(output).not.toMatch(/timed out|still working/i);
    expect(stub.received.value).toBe(2);
  });
});
