import { startChatSdkBot } from "./slack/chat-sdk-bot.ts";
import { driveLoad, SlackLoad } from "./slack/slack-load.ts";
import { startSwitchboardSlack } from "./slack/switchboard-slack-bot.ts";
import { atLeast, atMost, type Figure } from "./support/figures.ts";
import { instantModel } from "./support/instant.ts";
import { BENCH_REDIS, deleteKeysUnder, uniqueRedisPrefix } from "./support/redis-keys.ts";
import { median, percentile, round } from "./support/stats.ts";
import { sqliteUrl, tempDir } from "./support/temp-dir.ts";

const WARM_UP = 60;
const SEQUENTIAL = 300;
const CONCURRENT = 2_000;
/** Events in flight at once in the throughput phase, as when many people write at the same moment. */
const IN_FLIGHT = 50;

export interface SideBySideOptions {
  readonly rounds: number;
  readonly sequentialBoxMs: number;
  readonly concurrentBoxMs: number;
}

interface RunResult {
  readonly p50: number;
  readonly p99: number;
  readonly perSec: number;
  readonly sequential: number;
  readonly concurrent: number;
}

type Setup = "chat-sdk" | "defaults" | "memory-off" | "redis";
const SETUPS: readonly Setup[] = ["chat-sdk", "defaults", "memory-off", "redis"];

/** Starts the system under test against `load`'s workspace; returns how to wait for it and stop it. */
async function startSystem(setup: Setup, load: SlackLoad) {
  if (setup === "chat-sdk") {
    const bot = await startChatSdkBot({ apiUrl: load.slack.api.apiUrl, model: instantModel() });
    load.slack.connectHttp(bot.port, bot.path);
    return { idle: async () => {}, close: () => bot.close() };
  }
  if (setup === "redis") {
    const prefix = uniqueRedisPrefix("slack");
    const bot = await startSwitchboardSlack(load.slack, {
      url: `${BENCH_REDIS}?prefix=${prefix}`,
      memory: true,
    });
    return {
      idle: bot.idle,
      close: async () => {
        await bot.close();
        await deleteKeysUnder(prefix);
      },
    };
  }
  const dir = tempDir("slack");
  const bot = await startSwitchboardSlack(load.slack, {
    url: sqliteUrl(dir.path),
    memory: setup === "defaults",
  });
  return {
    idle: bot.idle,
    close: async () => {
      await bot.close();
      dir.remove();
    },
  };
}

/** One system, fresh workspace and store: warm-up, sequential latency, then throughput at IN_FLIGHT. */
async function runOnce(setup: Setup, options: SideBySideOptions): Promise<RunResult> {
  const load = await SlackLoad.start();
  const system = await startSystem(setup, load);
  try {
    await driveLoad(WARM_UP, 10, 10_000, (i) => load.ask(`warm ${i}`));
    await system.idle();
    const sequential = await driveLoad(SEQUENTIAL, 1, options.sequentialBoxMs, (i) => load.ask(`seq ${i}`));
    await system.idle();
    const started = performance.now();
    const concurrent = await driveLoad(CONCURRENT, IN_FLIGHT, options.concurrentBoxMs, (i) =>
      load.ask(`par ${i}`),
    );
    // Work a system does after answering (memory) is part of what an event costs.
    await system.idle();
    const seconds = (performance.now() - started) / 1000;
    process.stderr.write(
      `bench: slack ${setup}: ${sequential.latencies.length} sequential, ${concurrent.latencies.length} at ${IN_FLIGHT} in flight in ${seconds.toFixed(1)} s\n`,
    );
    return {
      p50: percentile(sequential.latencies, 50),
      p99: percentile(sequential.latencies, 99),
      perSec: concurrent.latencies.length / seconds,
      sequential: sequential.latencies.length,
      concurrent: concurrent.latencies.length,
    };
  } finally {
    await system.close();
    await load.close();
  }
}

/**
 * Switchboard's Slack HTTP mode against the Chat SDK with a one-node LangGraph handler, both
 * behind real HTTP against the same Web API stand-in, interleaved round by round so machine
 * noise hits all alike; medians over rounds.
 */
export async function measureSlackSideBySide(options: SideBySideOptions): Promise<Figure[]> {
  const results = new Map<Setup, RunResult[]>(SETUPS.map((setup) => [setup, []]));
  for (let round = 0; round < options.rounds; round += 1) {
    for (const setup of SETUPS) results.get(setup)?.push(await runOnce(setup, options));
  }
  const mid = (setup: Setup, pick: (run: RunResult) => number) =>
    median((results.get(setup) ?? []).map(pick));
  const chatPerSec = mid("chat-sdk", (run) => run.perSec);
  const chatP50 = mid("chat-sdk", (run) => run.p50);
  const describe = (setup: Setup) => {
    const runs = results.get(setup) ?? [];
    return (
      `${setup}: p50 ${round(mid(setup, (run) => run.p50))} ms, p99 ${round(mid(setup, (run) => run.p99))} ms, ` +
      `${round(
        mid(setup, (run) => run.perSec),
        1,
      )} events/s (${runs.map((run) => `${run.sequential}+${run.concurrent}`).join(", ")} events)`
    );
  };
  const note = `${options.rounds} interleaved rounds, medians. ${SETUPS.map(describe).join("; ")}`;
  const figures: Figure[] = [];
  const ratios: Array<[string, Setup, number | null, number | null]> = [
    ["", "defaults", 0.8, null],
    ["MemoryOff", "memory-off", 1.0, 1.2],
    ["Redis", "redis", null, null],
  ];
  for (const [suffix, setup, throughputGoal, p50Goal] of ratios) {
    const throughput = round(mid(setup, (run) => run.perSec) / chatPerSec);
    const p50 = round(mid(setup, (run) => run.p50) / chatP50);
    figures.push({
      key: `slackThroughputVsChatSdk${suffix}`,
      value: throughput,
      unit: "×",
      baseline: { label: "Chat SDK + LangGraph events/s", value: round(chatPerSec, 1) },
      ...(throughputGoal === null
        ? {}
        : { target: { text: `≥ ${throughputGoal}`, met: atLeast(throughput, throughputGoal) } }),
      // The raw figures of every set-up, once, under the first ratio.
      ...(suffix === "" ? { note } : {}),
    });
    figures.push({
      key: `slackP50VsChatSdk${suffix}`,
      value: p50,
      unit: "×",
      baseline: { label: "Chat SDK + LangGraph p50 ms", value: round(chatP50) },
      ...(p50Goal === null ? {} : { target: { text: `≤ ${p50Goal}`, met: atMost(p50, p50Goal) } }),
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
