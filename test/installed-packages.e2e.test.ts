/**
 * The packages as people install them: every workspace package is built and packed, the tarballs
 * are installed into a fresh project by plain npm (no workspace, no TypeScript sources), and then
 * the installed `switchboard` command and a program embedding the libraries must work.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { copyFile, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitFor } from "@switchboard/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installIntoFreshProject, RegistryUnreachableError } from "./support/packaging/npm-project.ts";
import { packWorkspace, REPOSITORY_ROOT } from "./support/packaging/pack-workspace.ts";
import { cleanEnvironment, runProgramOk } from "./support/packaging/run-program.ts";
import { FakeSlack } from "./support/slack/fake-slack.ts";
import { APP_TOKEN, BOT_TOKEN } from "./support/slack/web-api-stand-in.ts";
import { BOT_USER_ID, GENERAL } from "./support/slack/workspace-state.ts";

const EMBEDDED_BOT = new URL("./support/packaging/embedded-slack-bot.ts", import.meta.url);
const NODE = [process.execPath, "--disable-warning=ExperimentalWarning"] as const;

describe("the packed packages, installed by npm into a fresh project", () => {
  let folder: string;
  let project: string;
  let skipReason: string | undefined;

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), "switchboard-install-"));
    const tarballs = await packWorkspace(await mkdtemp(join(folder, "tarballs-")));
    project = join(folder, "project");
    await mkdir(project);
    try {
      await installIntoFreshProject(project, tarballs);
    } catch (error) {
      if (!(error instanceof RegistryUnreachableError)) throw error;
      skipReason = error.message;
      process.stderr.write(`switchboard tests: install test skipped: ${skipReason}\n`);
    }
  }, 400_000);
  afterAll(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it("`npx switchboard start` answers a piped hello on the offline model", async (context) => {
    if (skipReason) context.skip(skipReason);
    const { stdout, stderr } = await runProgramOk("npx", ["--no", "switchboard", "start"], {
      cwd: project,
      env: cleanEnvironment(),
      input: "hello\n",
      timeoutMs: 60_000,
    });
    expect(stdout).toContain("[main] you> hello");
    expect(stdout).toMatch(
      /\[main\] supervisor \(b-[0-9a-f]+\)> \[offline model\] supervisor here\. You said: "hello"/,
    );
    // Logs are JSON lines when stderr is not a terminal.
    expect(stderr).toMatch(/"platform":"console"[^\n]*"msg":"adapter started"/);
  }, 90_000);

  it("a program embedding @switchboard/core and @switchboard/slack type-checks and answers in Slack", async (context) => {
    if (skipReason) context.skip(skipReason);
    const program = join(project, "embedded-slack-bot.ts");
    await copyFile(EMBEDDED_BOT, program);
    await writeFile(join(project, "tsconfig.json"), JSON.stringify(consumerTsconfig(program)));
    // The published declarations must serve a strict TypeScript consumer.
    await runProgramOk(
      process.execPath,
      [join(REPOSITORY_ROOT, "node_modules/typescript/bin/tsc"), "-p", "."],
      {
        cwd: project,
        env: cleanEnvironment(),
      },
    );

    const slack = await FakeSlack.start({ transport: "socket" });
    let bot: ChildProcess | undefined;
    try {
      bot = spawn(NODE[0], [...NODE.slice(1), program, slack.api.apiUrl, BOT_TOKEN, APP_TOKEN], {
        cwd: project,
        env: cleanEnvironment(),
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      for (const stream of [bot.stdout, bot.stderr]) stream?.on("data", (chunk: Buffer) => (output += chunk));
      await waitFor(
        "the embedded bot to start",
        () => output.includes("embedded bot ready") || bot?.exitCode !== null,
        60_000,
      );
      expect(output).toContain("embedded bot ready");

      const root = await slack.say(GENERAL, `<@${BOT_USER_ID}> hello from npm`);
      const answer = await waitFor(
        "the embedded bot's answer",
        () => slack.state.thread(GENERAL, root.ts).find((message) => message.user === BOT_USER_ID),
        30_000,
      );
      expect(answer.text).toBe("embedded bot heard: hello from npm");
      expect(answer.thread_ts).toBe(root.ts);

      const exited = once(bot, "exit");
      bot.kill("SIGTERM");
      expect(await exited).toEqual([0, null]);
    } finally {
      if (bot && bot.exitCode === null) bot.kill("SIGKILL");
      await slack.close();
    }
  }, 120_000);
});

/** Strict, NodeNext, Node's types from the workspace (the fresh project has none of its own). */
function consumerTsconfig(program: string) {
  return {
    compilerOptions: {
      module: "NodeNext",
      moduleResolution: "NodeNext",
      target: "ES2023",
      strict: true,
      noEmit: true,
      allowImportingTsExtensions: true,
      skipLibCheck: true,
      typeRoots: [join(REPOSITORY_ROOT, "node_modules/@types")],
      types: ["node"],
    },
    files: [program],
  };
}
