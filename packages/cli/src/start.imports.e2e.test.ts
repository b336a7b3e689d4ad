/**
 * Start-up time is mostly module loading, and the model, storage and platform libraries are the
 * bulk of it: `switchboard start` must load only those its configuration names. Runs the real
 * command with a module hook that records every module Node loads.
 */
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENV_OVERRIDES } from "./config/env-overrides.ts";

const MAIN = fileURLToPath(new URL("./main.ts", import.meta.url));
const NODE_MODULES = "/node_modules/";

/** Records the URL of every module loaded, written to LOADED_MODULES_FILE when the process exits. */
const RECORDING_HOOK = `
import { registerHooks } from "node:module";
import { writeFileSync } from "node:fs";
const loaded = [];
registerHooks({ load(url, context, next) { loaded.push(url); return next(url, context); } });
process.on("exit", () => writeFileSync(process.env.LOADED_MODULES_FILE, loaded.join("\\n")));
`;

/** Libraries that only some configurations need: a model provider, a storage backend, a platform. */
const OPTIONAL_LIBRARIES = [
  "@langchain/openai",
  "@langchain/anthropic",
  "@langchain/ollama",
  "@langchain/langgraph-checkpoint-postgres",
  "pg",
  "@redis/client",
  "@keyv/redis",
  "matrix-bot-sdk",
  "discord.js",
  "@slack/bolt",
  "@slack/web-api",
  "@modelcontextprotocol/sdk",
  "@langchain/mcp-adapters",
  // Scale-out only (roles ingress and worker): role all never loads the job queue.
  "bullmq",
  "ioredis",
] as const;

/** The installed packages among the loaded module URLs (the package of the innermost node_modules). */
function packagesIn(urls: readonly string[]): Set<string> {
  const names = new Set<string>();
  for (const url of urls) {
    const at = url.lastIndexOf(NODE_MODULES);
    if (at === -1) continue;
    const [first = "", second = ""] = url.slice(at + NODE_MODULES.length).split("/");
    names.add(first.startsWith("@") ? `${first}/${second}` : first);
  }
  return names;
}

/** Runs `switchboard start` in `cwd` with `input` on stdin; the packages it loaded. */
async function packagesLoadedByStart(cwd: string, hook: string, input: string): Promise<Set<string>> {
  const loadedFile = join(cwd, "loaded-modules.txt");
  const env: NodeJS.ProcessEnv = { ...process.env, LOADED_MODULES_FILE: loadedFile };
  for (const { variable } of ENV_OVERRIDES) delete env[variable];
  const stderr = await new Promise<string>((resolve, reject) => {
    const child = spawn(
      "node",
      ["--disable-warning=ExperimentalWarning", "--import", pathToFileURL(hook).href, MAIN, "start"],
      { cwd, env, stdio: "pipe" },
    );
    let output = "";
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve(output) : reject(new Error(`start exited with ${code}:\n${output}`)),
    );
    child.stdin.end(input);
  });
  // Not a terminal: one JSON object per log line.
  expect(stderr).toMatch(/^\{"level":"info".*"platform":"console".*"msg":"adapter started"\}$/m);
  return packagesIn((await readFile(loadedFile, "utf8")).split("\n"));
}

describe("switchboard start loads only the libraries its configuration names", () => {
  let dir: string;
  let hook: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "switchboard-imports-"));
    hook = join(dir, "record-loaded-modules.mjs");
    await writeFile(hook, RECORDING_HOOK);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("with the built-in defaults (offline model, SQLite, terminal): none of the optional ones", async () => {
    const cwd = await mkdtemp(join(dir, "defaults-"));
    const loaded = await packagesLoadedByStart(cwd, hook, "hello\n");
    expect(loaded).toContain("@langchain/langgraph");
    expect(OPTIONAL_LIBRARIES.filter((name) => loaded.has(name))).toEqual([]);
  });

  it("with an Ollama model: that provider's library and no other optional one", async () => {
    const cwd = await mkdtemp(join(dir, "ollama-"));
    await writeFile(join(cwd, "switchboard.yaml"), "model: ollama:llama3.1\n");
    // No input: the model is built at start-up but never called (no network needed).
    const loaded = await packagesLoadedByStart(cwd, hook, "");
    expect(OPTIONAL_LIBRARIES.filter((name) => loaded.has(name))).toEqual(["@langchain/ollama"]);
  });

  it("with an MCP server: the MCP libraries and no other optional one", async () => {
    const cwd = await mkdtemp(join(dir, "mcp-"));
    const server = fileURLToPath(new URL("../../../test/support/mcp/stdio-order-server.ts", import.meta.url));
    const mcp = {
      servers: [{ name: "orders", transport: "stdio", command: process.execPath, args: [server] }],
    };
    await writeFile(join(cwd, "switchboard.yaml"), JSON.stringify({ mcp }));
    const loaded = await packagesLoadedByStart(cwd, hook, "");
    expect(OPTIONAL_LIBRARIES.filter((name) => loaded.has(name))).toEqual([
      "@modelcontextprotocol/sdk",
      "@langchain/mcp-adapters",
    ]);
  });
});
