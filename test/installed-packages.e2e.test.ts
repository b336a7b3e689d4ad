/**
 * The container image's build, replayed outside a container: the Dockerfile's own commands pack
 * every workspace package the CLI needs (deploy/pack-packages.ts derives the set) and install the
 * tarballs with plain npm into a fresh folder, as its install stage does. Then the installed
 * `switchboard` command — the image's ENTRYPOINT — and a program embedding the libraries must work.
 * A package the CLI needs but the build does not pack fails the install here.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { copyFile, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitFor } from "@switchboard/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI_PACKAGE, readWorkspace, runtimeClosure } from "../deploy/pack-packages.ts";
import { dockerInstructions } from "./support/packaging/dockerfile-stages.ts";
import {
  RegistryUnreachableError,
  replayInstallStage,
  replayPackStep,
} from "./support/packaging/npm-project.ts";
import { REPOSITORY_ROOT } from "./support/packaging/repository-root.ts";
import { cleanEnvironment, runProgramOk } from "./support/packaging/run-program.ts";
import { FakeSlack } from "./support/slack/fake-slack.ts";
import { APP_TOKEN, BOT_TOKEN } from "./support/slack/web-api-stand-in.ts";
import { BOT_USER_ID, GENERAL } from "./support/slack/workspace-state.ts";

const EMBEDDED_BOT = new URL("./support/packaging/embedded-slack-bot.ts", import.meta.url);
const NODE = [process.execPath, "--disable-warning=ExperimentalWarning"] as const;

describe("the container image's build and install, replayed outside a container", () => {
  let folder: string;
  let project: string;
  let tarballs: string[];
  let skipReason: string | undefined;
  let switchboard: string;

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), "switchboard-install-"));
    tarballs = await replayPackStep(join(folder, "packs"));
    project = join(folder, "opt-switchboard");
    switchboard = entryPoint(await readFile(join(REPOSITORY_ROOT, "Dockerfile"), "utf8"), project);
    try {
      await replayInstallStage(join(folder, "packs"), project);
    } catch (error) {
      if (!(error instanceof RegistryUnreachableError)) throw error;
      skipReason = error.message;
      process.stderr.write(`switchboard tests: install test skipped: ${skipReason}\n`);
    }
  }, 700_000);
  afterAll(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it("packs every workspace package the CLI depends on at run time, and nothing else", async () => {
    const needed = runtimeClosure(readWorkspace(REPOSITORY_ROOT), CLI_PACKAGE).map((found) => found.name);
    expect(needed).toEqual(
      expect.arrayContaining(["@switchboard/core", "@switchboard/web", "@switchboard/cli"]),
    );
    const packed = tarballs.map((tarball) => /(switchboard-[a-z]+)-[\d.]+\.tgz$/.exec(tarball)?.[1]);
    expect(packed.sort()).toEqual(needed.map((name) => name.replace("@switchboard/", "switchboard-")).sort());
  });

  it("`switchboard --version`, run as the image's entry point, names the CLI's version", async (context) => {
    if (skipReason) context.skip(skipReason);
    const { version } = JSON.parse(
      await readFile(join(REPOSITORY_ROOT, "packages/cli/package.json"), "utf8"),
    ) as {
      version: string;
    };
    const { stdout } = await runProgramOk(switchboard, ["--version"], {
      cwd: project,
      env: cleanEnvironment(),
    });
    expect(stdout.trim()).toBe(`switchboard ${version}`);
  });

  it("`switchboard start` answers a piped hello on the offline model", async (context) => {
    if (skipReason) context.skip(skipReason);
    const { stdout, stderr } = await runProgramOk(switchboard, ["start"], {
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
    // .mts: ESM whatever the type of the package.json the image's `npm init` wrote.
    const program = join(project, "embedded-slack-bot.mts");
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

/** The image's ENTRYPOINT, its install stage's WORKDIR replaced by the folder the replay ran in. */
function entryPoint(dockerfile: string, installedIn: string): string {
  const instructions = dockerInstructions(dockerfile);
  const [program] = JSON.parse(
    instructions.findLast((i) => i.keyword === "ENTRYPOINT")?.arguments ?? "[]",
  ) as string[];
  const workdir = instructions.find(
    (i, index) => i.keyword === "WORKDIR" && /AS install$/i.test(instructions[index - 1]?.arguments ?? ""),
  )?.arguments;
  if (!program || !workdir || !program.startsWith(`${workdir}/`))
    throw new Error(
      `the Dockerfile's ENTRYPOINT (${program}) is not inside its install stage's WORKDIR (${workdir})`,
    );
  return join(installedIn, program.slice(workdir.length));
}

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
