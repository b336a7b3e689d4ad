/**
 * Worker takeover: one ingress and two workers (real `switchboard start --role …` processes on the
 * local Redis, Slack through the stand-in, a 300 ms scripted model per process, `scaleOut` and
 * `engine.lockTtlSeconds` at their defaults). 80 threads × 4 messages written as people write; at
 * half-way one worker is SIGKILLed. `workerTakeoverMs`: from the kill until the surviving worker
 * logs the last of the dead worker's drains as stalled and takes it ("a drain stalled … another
 * worker takes it", the moment BullMQ hands the job over). The note adds when the survivor's model
 * was first called for each conversation the dead worker was answering: that also waits for the
 * conversation lock to lapse and for a turn slot behind the survivor's own backlog.
 */
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { conversationTakeoverBoundMs, jobTakeoverBoundMs } from "../packages/cli/src/scale-out/takeover.ts";
import { freePort } from "../test/services/free-port.ts";
import { answerReport, postsFor } from "../test/support/crash/answers.ts";
import { CliProcess } from "../test/support/crash/cli-process.ts";
import { crashConfig, writeCrashConfig } from "../test/support/crash/crash-config.ts";
import { answerWith, shortAnswer, shortParts, tokenOf } from "../test/support/crash/scripted-answers.ts";
import { type Origin, SlackTraffic } from "../test/support/crash/slack-traffic.ts";
import { ModelStub } from "../test/support/model/model-stub.ts";
import { HttpEventTransport } from "../test/support/slack/event-transport.ts";
import { FakeSlack } from "../test/support/slack/fake-slack.ts";
import { atMost, type Figure } from "./support/figures.ts";
import { BENCH_REDIS, deleteKeysUnder, uniqueRedisPrefix } from "./support/redis-keys.ts";
import { round } from "./support/stats.ts";

const THREADS = 80;
const MESSAGES_PER_THREAD = 4;
const MODEL_MS = 300;
/** The defaults of `scaleOut.jobLockSeconds` and `engine.lockTtlSeconds`. */
const JOB_LOCK_SECONDS = 30;
const LOCK_TTL_SECONDS = 30;
const VICTIM = 1;
const SURVIVOR = 2;

interface TakeoverRun {
  /** Kill → each "a drain stalled" line of the survivor. */
  readonly stalledMs: number[];
  /** Kill → the survivor's model called for each conversation the victim was answering. */
  readonly takeoverMs: number[];
  readonly lost: number;
  readonly doubled: number;
  readonly messages: number;
}

/** When each process's model was first called for each token (ms, `performance.now()`). */
class CallLog {
  readonly firstCall = new Map<string, number>();
  record(token: string): void {
    if (!this.firstCall.has(token)) this.firstCall.set(token, performance.now());
  }
}

async function runTakeover(): Promise<TakeoverRun> {
  const root = await mkdtemp(join(tmpdir(), "switchboard-bench-takeover-"));
  const prefix = uniqueRedisPrefix("worker-takeover");
  const slack = await FakeSlack.start({ transport: "http", echoBotMessages: false });
  const traffic = new SlackTraffic(slack.state);
  const processes: CliProcess[] = [];
  const stubs: ModelStub[] = [];
  const calls: CallLog[] = [];
  try {
    let ingress: HttpEventTransport | undefined;
    for (let slot = 0; slot <= 2; slot++) {
      const role = slot === 0 ? "ingress" : "worker";
      const dir = join(root, `slot-${slot}`);
      await mkdir(dir);
      const port = await freePort();
      const log = new CallLog();
      calls.push(log);
      const answer = answerWith(shortAnswer, { latencyMs: MODEL_MS });
      const stub = await ModelStub.start((request) => {
        log.record(tokenOf(request));
        return answer(request);
      });
      stubs.push(stub);
      const config = crashConfig({
        storeUrl: `${BENCH_REDIS}/?prefix=${prefix}`,
        model: stub.modelConfig(),
        slackApiUrl: slack.api.apiUrl,
        port,
        lockTtlSeconds: LOCK_TTL_SECONDS,
        role,
        extra: {
          logLevel: "warn",
          scaleOut: { jobLockSeconds: JOB_LOCK_SECONDS },
          // A conversation that waits for the takeover may pass the notice time: not what is timed.
          requests: { noticeAfterSeconds: 3_600, timeoutSeconds: 7_200 },
        },
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

    const origins: Origin[] = [];
    let killedAt: number | undefined;
    let killedAtWall = 0;
    let inFlight: string[] = [];
    const killAtHalf = (async () => {
      const half = (THREADS * MESSAGES_PER_THREAD) / 2;
      while (answerReport(slack.state, origins, shortParts).complete < half) await pause(20);
      const victimCalls = calls[VICTIM] as CallLog;
      killedAt = performance.now();
      killedAtWall = Date.now();
      await processes[VICTIM]?.kill();
      // What the victim was answering: its model was called, no answer reached Slack.
      inFlight = [...victimCalls.firstCall.keys()].filter((token) => {
        const origin = origins.find((candidate) => candidate.token === token);
        return origin !== undefined && postsFor(slack.state, origin).length === 0;
      });
    })();
    await writeThreads(traffic, ingress, origins);
    await killAtHalf;
    await waitForAnswers(slack, origins);
    if (killedAt === undefined) throw new Error("the worker was never killed");
    const survivorCalls = calls[SURVIVOR] as CallLog;
    const from = killedAt;
    const takeoverMs = inFlight.map((token) => {
      const at = survivorCalls.firstCall.get(token);
      if (at === undefined) throw new Error(`${token} was answered without the survivor's model`);
      return at - from;
    });
    const report = answerReport(slack.state, origins, shortParts);
    const stalledMs = stalledLines(processes[SURVIVOR]?.stderr ?? "").map((at) => at - killedAtWall);
    return {
      stalledMs,
      takeoverMs,
      lost: report.lost.length,
      doubled: report.doubled.length,
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
async function writeThreads(traffic: SlackTraffic, ingress: HttpEventTransport, origins: Origin[]) {
  await Promise.all(
    Array.from({ length: THREADS }, async (_, index) => {
      let threadTs: string | undefined;
      for (let message = 0; message < MESSAGES_PER_THREAD; message++) {
        const token = `t${String(index).padStart(3, "0")}m${String(message).padStart(2, "0")}`;
        const origin = traffic.mention(token, threadTs);
        threadTs ??= origin.threadTs;
        origins.push(origin);
        await traffic.deliverUntilAcked(ingress, origin);
      }
    }),
  );
}

async function waitForAnswers(slack: FakeSlack, origins: readonly Origin[], timeoutMs = 240_000) {
  const deadline = Date.now() + timeoutMs;
  while (answerReport(slack.state, origins, shortParts).complete < origins.length) {
    if (Date.now() > deadline) throw new Error("the cluster did not answer every message in time");
    await pause(25);
  }
}

/** When the worker logged each stalled drain it took over (its JSON log lines' `time`). */
function stalledLines(stderr: string): number[] {
  return stderr
    .split("\n")
    .filter((line) => line.includes("a drain stalled"))
    .map((line) => Date.parse((JSON.parse(line) as { time: string }).time));
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function measureWorkerTakeover(): Promise<Figure[]> {
  const run = await runTakeover();
  const bound = jobTakeoverBoundMs(JOB_LOCK_SECONDS * 1000);
  const conversationBound = conversationTakeoverBoundMs(JOB_LOCK_SECONDS * 1000, LOCK_TTL_SECONDS * 1000);
  const longest = run.stalledMs.length > 0 ? Math.max(...run.stalledMs) : null;
  const range = (values: readonly number[]) =>
    values.length === 0 ? "-" : `${round(Math.min(...values), 0)}–${round(Math.max(...values), 0)} ms`;
  return [
    {
      key: "workerTakeoverMs",
      value: longest === null ? null : round(longest, 0),
      unit: "ms",
      baseline: { label: "documented bound (scaleOut.jobLockSeconds)", value: bound },
      target: { text: `≤ ${bound} ms`, met: atMost(longest, bound) },
      note:
        `one ingress, two workers, ${run.messages} messages over ${THREADS} threads, ${MODEL_MS} ms model, ` +
        `job lock and lock TTL ${JOB_LOCK_SECONDS} s; a worker SIGKILLed at half-way: ` +
        `${run.stalledMs.length} drains taken over after ${range(run.stalledMs)} (kill → "a drain stalled"); ` +
        `the ${run.takeoverMs.length} conversations it was answering reached the survivor's model after ` +
        `${range(run.takeoverMs)} (bound for the lapse of their locks: ${conversationBound} ms; beyond it, ` +
        `their turns waited behind the survivor's backlog); lost ${run.lost}, doubled ${run.doubled}`,
    },
  ];
}
