/**
 * Switchboard's Slack HTTP mode against the Chat SDK with a one-node LangGraph handler, each bot
 * in a process of its own (Switchboard started by its CLI, as an operator starts it), the Slack
 * stand-in, the load and the model server in this one. Set-ups interleave round by round so
 * machine noise hits all alike; ratios of the medians over rounds.
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ModelStub } from "../test/support/model/model-stub.ts";
import { driveLoad, SlackLoad } from "./slack/slack-load.ts";
import type { BotUnderTest } from "./slack/start-bots.ts";
import { startChatSdkProcess, startSwitchboardCli } from "./slack/start-bots.ts";
import { atLeast, atMost, type Figure } from "./support/figures.ts";
import { BENCH_REDIS, deleteKeysUnder, uniqueRedisPrefix } from "./support/redis-keys.ts";
import { median, percentile, round } from "./support/stats.ts";
import { tempDir } from "./support/temp-dir.ts";
import { message200 } from "./support/text.ts";

/** Events before anything is timed: the bots compile their hot paths (V8 compiles on threads the CPU figure counts). */
const WARM_UP = 200;
const SEQUENTIAL = 300;
const CONCURRENT = 2_000;
/** Events in flight at once in the throughput phase, as when many people write at the same moment. */
const IN_FLIGHT = 50;

export interface SideBySideOptions {
  readonly rounds: number;
  readonly sequentialBoxMs: number;
  readonly concurrentBoxMs: number;
}

export interface RunResult {
  readonly p50: number;
  readonly p99: number;
  /** Events answered per second at IN_FLIGHT, until the bot was quiet again. */
  readonly perSec: number;
  /** CPU milliseconds of the bot's process per event over the throughput phase (until quiet). */
  readonly cpuMs: number;
  /** The same over the sequential phase. */
  readonly cpuMsSequential: number;
  readonly sequential: number;
  readonly concurrent: number;
}

export type Setup = "chat-sdk" | "defaults" | "memory-off" | "chat-sdk-redis" | "redis";
const SETUPS: readonly Setup[] = ["chat-sdk", "defaults", "memory-off", "chat-sdk-redis", "redis"];

/** Starts the bot of `setup` against `load`'s workspace and `model`; returns it and how to clean up after it. */
export async function startBot(setup: Setup, load: SlackLoad, model: ModelStub, dir: string, cli?: string) {
  const common = {
    dir,
    slackApiUrl: load.slack.api.apiUrl,
    modelBaseUrl: model.baseUrl,
    ...(cli ? { cli } : {}),
  };
  const prefix = uniqueRedisPrefix("slack");
  let bot: BotUnderTest;
  if (setup === "chat-sdk") bot = await startChatSdkProcess(common);
  else if (setup === "chat-sdk-redis")
    bot = await startChatSdkProcess({ ...common, redis: { url: BENCH_REDIS, keyPrefix: prefix } });
  else if (setup === "redis")
    bot = await startSwitchboardCli({ ...common, config: { store: `${BENCH_REDIS}/?prefix=${prefix}` } });
  else
    bot = await startSwitchboardCli({
      ...common,
      ...(setup === "memory-off" ? { config: { memory: { enabled: false } } } : {}),
    });
  load.slack.connectHttp(bot.port, bot.path);
  return {
    bot,
    async cleanUp() {
      await bot.process.stop();
      if (setup === "redis" || setup === "chat-sdk-redis") await deleteKeysUnder(prefix);
    },
  };
}

/**
 * One system, fresh process, workspace and store: warm-up, sequential latency, then throughput at
 * IN_FLIGHT. `cli`: another checkout's CLI (slack/compare-versions.ts), this one's by default.
 */
export async function runSetup(setup: Setup, options: SideBySideOptions, cli?: string): Promise<RunResult> {
  const dir = tempDir("slack");
  let answers = 0;
  const model = await ModelStub.start(() => ({ kind: "answer", text: message200("answer", ++answers) }));
  const load = await SlackLoad.start();
  const { bot, cleanUp } = await startBot(setup, load, model, dir.path, cli);
  try {
    await driveLoad(WARM_UP, 10, 20_000, (i) => load.ask(`warm ${i}`));
    await bot.process.quiet();

    const sequentialCpu = bot.process.cpuMs();
    const sequential = await driveLoad(SEQUENTIAL, 1, options.sequentialBoxMs, (i) => load.ask(`seq ${i}`));
    await bot.process.quiet();
    const cpuMsSequential = (bot.process.cpuMs() - sequentialCpu) / sequential.latencies.length;

    const cpu = bot.process.cpuMs();
    const loadCpu = process.cpuUsage();
    const started = performance.now();
    const concurrent = await driveLoad(CONCURRENT, IN_FLIGHT, options.concurrentBoxMs, (i) =>
      load.ask(`par ${i}`),
    );
    // Work a bot does after answering (memory, bookkeeping) is part of what an event costs: the
    // phase ends when its process last used CPU.
    const ended = await bot.process.quiet();
    const seconds = (ended - started) / 1000;
    const cpuMs = (bot.process.cpuMs() - cpu) / concurrent.latencies.length;
    const loadUsed = process.cpuUsage(loadCpu);
    process.stderr.write(
      `bench: slack ${setup}${cli ? ` (${cli})` : ""}: ${sequential.latencies.length} sequential (p50 ${round(percentile(sequential.latencies, 50))} ms), ` +
        `${concurrent.latencies.length} at ${IN_FLIGHT} in flight in ${seconds.toFixed(1)} s, ` +
        `CPU ${round(cpuMs)} ms/event (sequential ${round(cpuMsSequential)}); ` +
        `the load process ${round((loadUsed.user + loadUsed.system) / 1000 / concurrent.latencies.length)} ms/event\n`,
    );
    return {
      p50: percentile(sequential.latencies, 50),
      p99: percentile(sequential.latencies, 99),
      perSec: concurrent.latencies.length / seconds,
      cpuMs,
      cpuMsSequential,
      sequential: sequential.latencies.length,
      concurrent: concurrent.latencies.length,
    };
  } finally {
    await cleanUp();
    await load.close();
    await model.close();
    dir.remove();
  }
}

const COUNTER = join(dirname(fileURLToPath(import.meta.url)), "slack", "count-store-writes.ts");

/**
 * What the embedded store does per event, counted inside the CLI (`count-store-writes.ts`): SQL
 * statements and commits over the sequential phase. Counting slows the process, so this is a run
 * of its own, after the timed ones; the figure is the same on any machine. `cli`: another
 * checkout's, as in `runSetup`.
 */
export async function countStoreWork(
  setup: "defaults" | "memory-off",
  cli?: string,
): Promise<{
  statements: number;
  commits: number;
  events: number;
}> {
  const dir = tempDir("slack-store-count");
  const countsFile = join(dir.path, "store-counts.json");
  let answers = 0;
  const model = await ModelStub.start(() => ({ kind: "answer", text: message200("answer", ++answers) }));
  const load = await SlackLoad.start();
  const bot = await startSwitchboardCli({
    dir: dir.path,
    slackApiUrl: load.slack.api.apiUrl,
    modelBaseUrl: model.baseUrl,
    nodeFlags: ["--import", COUNTER],
    env: { STORE_COUNTS_FILE: countsFile },
    ...(cli ? { cli } : {}),
    ...(setup === "memory-off" ? { config: { memory: { enabled: false } } } : {}),
  });
  load.slack.connectHttp(bot.port, bot.path);
  const countsNow = async () => {
    rmSync(countsFile, { force: true });
    process.kill(bot.process.pid ?? 0, "SIGUSR2");
    while (!existsSync(countsFile)) await new Promise((resolve) => setTimeout(resolve, 10));
    return JSON.parse(readFileSync(countsFile, "utf8")) as { statements: number; commits: number };
  };
  try {
    await driveLoad(WARM_UP, 10, 20_000, (i) => load.ask(`warm ${i}`));
    await bot.process.quiet();
    const before = await countsNow();
    const run = await driveLoad(SEQUENTIAL, 1, 60_000, (i) => load.ask(`seq ${i}`));
    // What an event leaves to do after its answer (its run's end, delivery records) is its cost too.
    await bot.process.quiet();
    const after = await countsNow();
    const events = run.latencies.length;
    return {
      statements: (after.statements - before.statements) / events,
      commits: (after.commits - before.commits) / events,
      events,
    };
  } finally {
    await bot.process.stop();
    await load.close();
    await model.close();
    dir.remove();
  }
}

export async function measureSlackSideBySide(options: SideBySideOptions): Promise<Figure[]> {
  const results = new Map<Setup, RunResult[]>(SETUPS.map((setup) => [setup, []]));
  for (let round = 0; round < options.rounds; round += 1) {
    for (const setup of SETUPS) results.get(setup)?.push(await runSetup(setup, options));
  }
  const mid = (setup: Setup, pick: (run: RunResult) => number) =>
    median((results.get(setup) ?? []).map(pick));
  const describe = (setup: Setup) => {
    const runs = results.get(setup) ?? [];
    return (
      `${setup}: p50 ${round(mid(setup, (run) => run.p50))} ms, p99 ${round(mid(setup, (run) => run.p99))} ms, ` +
      `${round(
        mid(setup, (run) => run.perSec),
        1,
      )} events/s, CPU ${round(mid(setup, (run) => run.cpuMs))} ms/event at ${IN_FLIGHT} in flight ` +
      `(${round(mid(setup, (run) => run.cpuMsSequential))} sequential) ` +
      `(${runs.map((run) => `${run.sequential}+${run.concurrent}`).join(", ")} events)`
    );
  };
  const note =
    `each bot in its own process (Switchboard by \`switchboard start --config\`); ${options.rounds} interleaved rounds, medians. ` +
    SETUPS.map(describe).join("; ");
  const figures: Figure[] = [];
  const comparisons: Array<[suffix: string, ours: Setup, theirs: Setup, throughputGoal: number]> = [
    ["", "defaults", "chat-sdk", 1.0],
    ["MemoryOff", "memory-off", "chat-sdk", 1.2],
    ["Redis", "redis", "chat-sdk-redis", 1.0],
  ];
  for (const [suffix, ours, theirs, throughputGoal] of comparisons) {
    const theirPerSec = mid(theirs, (run) => run.perSec);
    const theirP50 = mid(theirs, (run) => run.p50);
    const throughput = round(mid(ours, (run) => run.perSec) / theirPerSec);
    const p50 = round(mid(ours, (run) => run.p50) / theirP50);
    const state = theirs === "chat-sdk-redis" ? " (state on Redis)" : "";
    figures.push({
      key: `slackThroughputVsChatSdk${suffix}`,
      value: throughput,
      unit: "×",
      baseline: { label: `Chat SDK + LangGraph${state} events/s`, value: round(theirPerSec, 1) },
      target: { text: `≥ ${throughputGoal}`, met: atLeast(throughput, throughputGoal) },
      // The raw figures of every set-up, once, under the first ratio.
      ...(suffix === "" ? { note } : {}),
    });
    figures.push({
      key: `slackP50VsChatSdk${suffix}`,
      value: p50,
      unit: "×",
      baseline: { label: `Chat SDK + LangGraph${state} p50 ms`, value: round(theirP50) },
      target: { text: "≤ 1.2", met: atMost(p50, 1.2) },
    });
  }
  // CPU per event: the figure with a target is memory off (what the Chat SDK bot does too).
  const cpuComparisons: Array<[suffix: string, ours: Setup, theirs: Setup, goal: number | null]> = [
    ["", "memory-off", "chat-sdk", 1.0],
    ["Defaults", "defaults", "chat-sdk", null],
    ["Redis", "redis", "chat-sdk-redis", null],
  ];
  for (const [suffix, ours, theirs, goal] of cpuComparisons) {
    const theirCpu = mid(theirs, (run) => run.cpuMs);
    const cpu = round(mid(ours, (run) => run.cpuMs) / theirCpu);
    figures.push({
      key: `slackCpuPerEventVsChatSdk${suffix}`,
      value: cpu,
      unit: "×",
      baseline: {
        label: `Chat SDK CPU ms/event${theirs === "chat-sdk-redis" ? " (Redis)" : ""}`,
        value: round(theirCpu),
      },
      ...(goal === null ? {} : { target: { text: `≤ ${goal}`, met: atMost(cpu, goal) } }),
    });
  }
  for (const setup of ["memory-off", "defaults"] as const) {
    const counted = await countStoreWork(setup);
    const suffix = setup === "memory-off" ? "MemoryOff" : "";
    figures.push({
      key: `slackStoreCommitsPerEvent${suffix}`,
      value: round(counted.commits, 2),
      unit: "commits",
      baseline: { label: "SQL statements per event", value: round(counted.statements, 1) },
      note: `the CLI (${setup}) on the embedded SQLite store, counted inside its process over ${counted.events} sequential events (every connection: store and checkpoints); a commit is a COMMIT or a write outside a transaction`,
    });
  }
  const redisVsSqlite = round(mid("redis", (run) => run.perSec) / mid("defaults", (run) => run.perSec));
  figures.push({
    key: "slackRedisVsSqliteThroughput",
    value: redisVsSqlite,
    unit: "×",
    target: { text: "≥ 0.8", met: atLeast(redisVsSqlite, 0.8) },
  });
  return figures;
}
