import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { atMost, type Figure } from "./support/figures.ts";
import { median, round } from "./support/stats.ts";
import { tempDir } from "./support/temp-dir.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const CLI = join(root, "packages", "cli", "src", "main.ts");
const PLAIN = join(root, "bench", "support", "plain-chat.ts");
const RUNS = 5;
const LIMIT_MS = 30_000;

/** A bot answer on the console: `[place] agent (id)> text`; the echo of the user's line is `[place] you> …`. */
const CLI_ANSWER = /^\[[^\]]+\] (?!you>)\S+ \([^)]+\)> /m;
const CLI_READY = /^\[[^\]]+\] you> /m;
const PLAIN_ANSWER = /^bot> /m;

interface Timing {
  /** Until the process read the first line (the CLI echoes it once the engine has started). */
  readonly readyMs: number | undefined;
  /** Until the answer to that line was printed. */
  readonly answerMs: number;
}

/** Spawns `args` in a fresh folder with "hello" piped in; times the ready echo and the first answer. */
function timeStart(args: readonly string[], answer: RegExp, ready?: RegExp): Promise<Timing> {
  const dir = tempDir("startup");
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith("SWITCHBOARD_")),
  );
  return new Promise<Timing>((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, ["--disable-warning=ExperimentalWarning", ...args], {
      cwd: dir.path,
      env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    let readyMs: number | undefined;
    let answerMs: number | undefined;
    const limit = setTimeout(() => child.kill("SIGKILL"), LIMIT_MS);
    child.stdin.end("hello\n");
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const now = performance.now() - started;
      if (readyMs === undefined && ready?.test(stdout)) readyMs = now;
      if (answerMs === undefined && answer.test(stdout)) answerMs = now;
    });
    child.on("exit", (code) => {
      clearTimeout(limit);
      dir.remove();
      if (answerMs === undefined)
        reject(new Error(`${args.join(" ")} exited (${code}) without answering:\n${stdout}\n${stderr}`));
      else resolve({ readyMs, answerMs });
    });
  });
}

/** `switchboard start` with embedded defaults (no config file: offline model, SQLite in ./data). */
export async function measureStartup(): Promise<Figure[]> {
  const cli: Timing[] = [];
  const plain: Timing[] = [];
  for (let run = 0; run < RUNS; run++) {
    cli.push(await timeStart([CLI, "start"], CLI_ANSWER, CLI_READY));
    plain.push(await timeStart([PLAIN], PLAIN_ANSWER));
  }
  const answerMs = round(median(cli.map((t) => t.answerMs)), 0);
  const readyTimes = cli.map((t) => t.readyMs).filter((ms): ms is number => ms !== undefined);
  return [
    {
      key: "startupMs",
      value: answerMs,
      unit: "ms",
      baseline: { label: "plain LangGraph script", value: round(median(plain.map((t) => t.answerMs)), 0) },
      target: { text: "≤ 1,500 ms", met: atMost(answerMs, 1500) },
      note:
        `median of ${RUNS}: spawn of \`node packages/cli/src/main.ts start\` in an empty folder with "hello" piped ` +
        `in, until the answer is printed (until the line is read: ${readyTimes.length > 0 ? round(median(readyTimes), 0) : "?"} ms); ` +
        "baseline: a script loading LangGraph and answering the same line with a one-node graph",
    },
  ];
}
