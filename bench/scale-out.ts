/**
 * Scale-out: the same load through one ingress and one worker, then one ingress and two workers
 * (real `switchboard start --role …` processes on the local Redis, Slack through the stand-in, an
 * instant scripted model). Messages answered per second with two workers ÷ with one; and the Redis
 * commands the cluster sends per message (MONITOR, commands carrying our key prefix, calls made
 * inside Lua scripts left out: each counted command is one request on the wire, pipelined or not),
 * on a separate, smaller load: MONITOR slows Redis, so it never runs while the rate is timed.
 */
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@redis/client";
import { freePort } from "../test/services/free-port.ts";
import { answerReport } from "../test/support/crash/answers.ts";
import { CliProcess } from "../test/support/crash/cli-process.ts";
import { crashConfig, writeCrashConfig } from "../test/support/crash/crash-config.ts";
import { answerWith, shortAnswer, shortParts } from "../test/support/crash/scripted-answers.ts";
import { type Origin, SlackTraffic } from "../test/support/crash/slack-traffic.ts";
import { ModelStub } from "../test/support/model/model-stub.ts";
import { HttpEventTransport } from "../test/support/slack/event-transport.ts";
import { FakeSlack } from "../test/support/slack/fake-slack.ts";
import { atLeast, type Figure } from "./support/figures.ts";
import { BENCH_REDIS, deleteKeysUnder, uniqueRedisPrefix } from "./support/redis-keys.ts";
import { round } from "./support/stats.ts";

const THREADS = 100;
const MESSAGES_PER_THREAD = 6;
const WARM_UP_THREADS = 10;
const COUNTED_THREADS = 20;

interface ClusterRun {
  readonly perSecond: number;
  readonly commandsPerMessage: number;
  readonly messages: number;
}

/** One cluster (ingress + `workers` workers) on a fresh prefix: warm-up, then the measured load. */
async function runCluster(workers: number): Promise<ClusterRun> {
  const root = await mkdtemp(join(tmpdir(), "switchboard-bench-scale-out-"));
  const prefix = uniqueRedisPrefix("scale-out");
  const slack = await FakeSlack.start({ transport: "http", echoBotMessages: false });
  const traffic = new SlackTraffic(slack.state);
  const processes: CliProcess[] = [];
  const stubs: ModelStub[] = [];
  try {
    let ingress: HttpEventTransport | undefined;
    for (let slot = 0; slot <= workers; slot++) {
      const role = slot === 0 ? "ingress" : "worker";
      const dir = join(root, `slot-${slot}`);
      await mkdir(dir);
      const port = await freePort();
      const stub = await ModelStub.start(answerWith(shortAnswer));
      stubs.push(stub);
      const config = crashConfig({
        storeUrl: `${BENCH_REDIS}/?prefix=${prefix}`,
        model: stub.modelConfig(),
        slackApiUrl: slack.api.apiUrl,
        port,
        lockTtlSeconds: 10,
        role,
        jobLockSeconds: 10,
        extra: { logLevel: "warn" },
      });
      const env = await writeCrashConfig(dir, config);
      processes.push(
        await CliProcess.start({
          cwd: dir,
          env,
          name: `${role} ${slot}`,
          readyText: role === "worker" ? "running as worker" : "running on slack",
        }),
      );
      if (slot === 0) ingress = new HttpEventTransport(`http://127.0.0.1:${port}/slack/events`);
    }
    if (!ingress) throw new Error("no ingress started");
    const warmUp = await writeThreads(traffic, ingress, "w", WARM_UP_THREADS);
    await waitForAnswers(slack, warmUp);

    // Requests are counted on a load of their own: MONITOR slows Redis, so never while timing.
    const counter = await countCommands(prefix);
    const counted = await writeThreads(traffic, ingress, "c", COUNTED_THREADS);
    await waitForAnswers(slack, counted);
    const commands = await counter.stop();

    const started = performance.now();
    const origins = await writeThreads(traffic, ingress, "t", THREADS);
    await waitForAnswers(slack, origins);
    const seconds = (performance.now() - started) / 1000;
    return {
      perSecond: origins.length / seconds,
      commandsPerMessage: commands / counted.length,
      messages: origins.length,
    };
  } finally {
    for (const cli of processes) await cli.kill();
    await Promise.all(stubs.map((stub) => stub.close()));
    await slack.close();
    await deleteKeysUnder(prefix);
    await rm(root, { recursive: true, force: true });
  }
}

/** Every thread written message after message (the next once the ingress acked), the threads at once. */
async function writeThreads(
  traffic: SlackTraffic,
  ingress: HttpEventTransport,
  letter: "w" | "c" | "t",
  threads: number,
): Promise<Origin[]> {
  const all: Origin[][] = Array.from({ length: threads }, () => []);
  await Promise.all(
    all.map(async (thread, index) => {
      for (let message = 0; message < MESSAGES_PER_THREAD; message++) {
        // Tokens the scripted model repeats: `t` + thread + `m` + message (warm-up threads from 900,
        // counted ones from 800).
        const number = letter === "w" ? 900 + index : letter === "c" ? 800 + index : index;
        const token = `t${String(number).padStart(3, "0")}m${String(message).padStart(2, "0")}`;
        const origin = traffic.mention(token, thread[0]?.threadTs);
        thread.push(origin);
        await traffic.deliverUntilAcked(ingress, origin);
      }
    }),
  );
  return all.flat();
}

async function waitForAnswers(slack: FakeSlack, origins: readonly Origin[], timeoutMs = 240_000) {
  const deadline = Date.now() + timeoutMs;
  while (answerReport(slack.state, origins, shortParts).complete < origins.length) {
    if (Date.now() > deadline) throw new Error("the cluster did not answer every message in time");
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Counts the requests carrying `prefix` that clients send to Redis, until `stop`. */
async function countCommands(prefix: string): Promise<{ stop(): Promise<number> }> {
  const client = createClient({ url: BENCH_REDIS });
  await client.connect();
  let count = 0;
  await client.monitor((line: string) => {
    if (line.includes(prefix) && !line.includes(" lua]")) count += 1;
  });
  return {
    async stop() {
      client.destroy();
      return count;
    },
  };
}

export async function measureScaleOut(): Promise<Figure[]> {
  const one = await runCluster(1);
  const two = await runCluster(2);
  const ratio = round(two.perSecond / one.perSecond);
  const note =
    `${one.messages} messages over ${THREADS} threads (${MESSAGES_PER_THREAD} each, written as people do), ` +
    `one ingress; ${round(one.perSecond, 1)} msg/s with one worker, ${round(two.perSecond, 1)} with two; ` +
    "three processes, the Slack stand-in and Redis share the machine's cores";
  return [
    {
      key: "scaleOutWorkers2Ratio",
      value: ratio,
      unit: "×",
      baseline: { label: "one worker", value: 1 },
      target: { text: "≥ 1.6 on 2 cores", met: atLeast(ratio, 1.6) },
      note,
    },
    {
      key: "scaleOutRedisCommandsPerMessage",
      value: round(two.commandsPerMessage, 1),
      unit: "requests",
      baseline: { label: "one worker", value: round(one.commandsPerMessage, 1) },
      note: `Redis requests per message with two workers (ingress and workers together; inside-script calls not counted), over ${COUNTED_THREADS * MESSAGES_PER_THREAD} messages`,
    },
  ];
}
