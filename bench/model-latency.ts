/**
 * Answers at the speed of the model: the real `switchboard start` (its own process, Slack HTTP mode,
 * embedded SQLite, memory on) against the Slack stand-in and an OpenAI-compatible stub model in
 * this process whose latency and faults each run sets. Every run starts a fresh process, so what
 * one run's endpoint limit learnt never helps the next.
 *
 * - `answerP50AtModelLatencyRatio`: 200 people mention the bot at once, the model takes 2 s a
 *   call; p50 of mention → answer in its thread ÷ the model's own time for a turn.
 * - `answerP50WithHangsMs`: the same with every tenth model call hanging (never answering); the
 *   first-token timeout (30 s) gives up on it and retries. Target: ≤ 2 × the p50 without hangs.
 * - `ackP99MsAt1000InFlightSlowModel`: 1,000 mentions waiting on the 2 s model, then 200 more 10 ms
 *   apart: the p99 of their acknowledgements.
 * - `providerCallsAfter429Storm`: 10 mentions a second, a 1 s model; after 8 s the stub answers
 *   every call 429 with Retry-After 2 s for 8 s. Model calls per second in the first Retry-After of
 *   the storm ÷ calls per second over the 4 s before it.
 * - `burstAnswerP50VsChatSdk`: the same burst beside the Chat SDK bot (burst-beside-chat-sdk.ts).
 */

import { shortAnswer, tokenOf } from "../test/support/crash/scripted-answers.ts";
import { type ChatRequest, fail, hang, type StubReply } from "../test/support/model/chat-request.ts";
import { ModelStub } from "../test/support/model/model-stub.ts";
import { measureBurstBesideChatSdk } from "./burst-beside-chat-sdk.ts";
import { atMost, type Figure } from "./support/figures.ts";
import { processCpuMs } from "./support/process-cpu.ts";
import { type Mention, SlackCli } from "./support/slack-cli.ts";
import { median, percentile, round } from "./support/stats.ts";

const AT_ONCE = 200;
const MODEL_MS = 2_000;
const HANG_EVERY = 10;
const FIRST_TOKEN_TIMEOUT_SECONDS = 30;
const IN_FLIGHT = 1_000;
const PROBES = 200;
const PROBE_GAP_MS = 10;
/** Light enough that a loaded 2-core machine keeps up before the storm (calls then wait on the model only). */
const STORM = {
  perSecond: 10,
  modelMs: 1_000,
  beforeMs: 8_000,
  stormMs: 8_000,
  afterMs: 6_000,
  retryAfterS: 2,
};

/** What the stub saw: each request's arrival time and token, and the time the model spent answering. */
class ModelLog {
  readonly arrivals: { at: number; token: string }[] = [];
  readonly modelMsByToken = new Map<string, number>();

  script(reply: (request: ChatRequest) => { reply: StubReply; modelMs: number }) {
    return (request: ChatRequest): StubReply => {
      const token = tokenOf(request);
      this.arrivals.push({ at: performance.now(), token });
      const { reply: answer, modelMs } = reply(request);
      this.modelMsByToken.set(token, (this.modelMsByToken.get(token) ?? 0) + modelMs);
      return answer;
    };
  }
}

const answered = (request: ChatRequest, latencyMs: number) => ({
  reply: { kind: "answer", text: shortAnswer(tokenOf(request)), latencyMs } satisfies StubReply,
  modelMs: latencyMs,
});

const modelSection = (stub: ModelStub) => ({
  ...stub.modelConfig(),
  firstTokenTimeoutSeconds: FIRST_TOKEN_TIMEOUT_SECONDS,
});

const token = (prefix: "q" | "t", index: number) => `${prefix}${String(index).padStart(3, "0")}`;

interface BurstResult {
  readonly answerMs: number[];
  readonly modelMsPerTurn: number[];
  readonly answered: number;
  readonly stubMaxInFlight: number;
  /** CPU milliseconds the CLI used from the mentions until the last answer (or the time box). */
  readonly cliCpuMs: number;
}

/** `AT_ONCE` mentions at the same moment; waits for their answers (at most `boxMs`). */
async function burst(name: string, everyTenthHangs: boolean, boxMs: number): Promise<BurstResult> {
  const log = new ModelLog();
  const stub = await ModelStub.start(
    log.script((request) =>
      everyTenthHangs && request.index % HANG_EVERY === HANG_EVERY - 1
        ? { reply: hang(), modelMs: 0 }
        : answered(request, MODEL_MS),
    ),
  );
  let stubMaxInFlight = 0;
  const watch = setInterval(() => {
    stubMaxInFlight = Math.max(stubMaxInFlight, stub.inFlight.value);
  }, 20);
  const run = await SlackCli.start({ name, model: modelSection(stub), extra: { memory: { enabled: true } } });
  try {
    const pid = run.cli.pid;
    if (pid === undefined) throw new Error(`${name}: the CLI has no process id`);
    const cpuBefore = processCpuMs(pid);
    const mentions = Array.from({ length: AT_ONCE }, (_, i) =>
      run.mention(`please help with ${token("q", i)}`),
    );
    await Promise.all(mentions.map((mention) => mention.delivered));
    const count = await run.waitForAnswers(mentions, boxMs);
    const cliCpuMs = processCpuMs(pid) - cpuBefore;
    const answerMs = mentions.map((mention) => run.answerMs(mention)).filter((ms) => ms !== undefined);
    const modelMsPerTurn = mentions
      .map((_, i) => log.modelMsByToken.get(token("q", i)) ?? 0)
      .filter((ms) => ms > 0);
    return { answerMs, modelMsPerTurn, answered: count, stubMaxInFlight, cliCpuMs };
  } finally {
    clearInterval(watch);
    await run.close();
    await stub.close();
  }
}

/** Acknowledgements of `PROBES` mentions sent while `IN_FLIGHT` others wait on the 2 s model. */
async function acksWhileWaiting(): Promise<{ probes: number[]; failed: string[]; inFlightAtStart: number }> {
  const stub = await ModelStub.start((request) => answered(request, MODEL_MS).reply);
  const run = await SlackCli.start({
    name: "model-latency-acks",
    model: modelSection(stub),
    extra: { memory: { enabled: true } },
  });
  try {
    const burstMentions: Mention[] = Array.from({ length: IN_FLIGHT }, (_, i) =>
      run.mention(`please help with ${token("q", i)}`),
    );
    await Promise.all(burstMentions.map((mention) => mention.delivered));
    const inFlightAtStart = burstMentions.filter((mention) => run.answerMs(mention) === undefined).length;
    const probes: Mention[] = [];
    for (let i = 0; i < PROBES; i++) {
      probes.push(run.mention(`please help with ${token("t", i)}`));
      await new Promise((resolve) => setTimeout(resolve, PROBE_GAP_MS));
    }
    await Promise.all(probes.map((probe) => probe.delivered));
    return { probes: probes.flatMap((probe) => probe.acks), failed: run.failedAcks, inFlightAtStart };
  } finally {
    await run.close();
    await stub.close();
  }
}

/** Model calls per Retry-After window, before and after the stub starts answering 429. */
async function storm(): Promise<{ before: number; windows: number[]; answered: number; sent: number }> {
  const log = new ModelLog();
  let stormFrom = Number.POSITIVE_INFINITY;
  let stormUntil = Number.POSITIVE_INFINITY;
  const stub = await ModelStub.start(
    log.script((request) => {
      const now = performance.now();
      if (now >= stormFrom && now < stormUntil) return { reply: fail(429, STORM.retryAfterS), modelMs: 0 };
      return answered(request, STORM.modelMs);
    }),
  );
  const run = await SlackCli.start({
    name: "model-latency-storm",
    model: modelSection(stub),
    extra: { memory: { enabled: true } },
  });
  try {
    const mentions: Mention[] = [];
    const started = performance.now();
    const total = ((STORM.beforeMs + STORM.stormMs + STORM.afterMs) / 1000) * STORM.perSecond;
    stormFrom = started + STORM.beforeMs;
    stormUntil = stormFrom + STORM.stormMs;
    for (let i = 0; i < total; i++) {
      const due = started + (i * 1000) / STORM.perSecond;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      // Tokens q000–q999 cover the whole run (22 s at 10 a second).
      mentions.push(run.mention(`please help with ${token("q", i % 1000)}`));
    }
    await run.waitForAnswers(mentions, 30_000);
    const windowMs = STORM.retryAfterS * 1000;
    const callsIn = (from: number) =>
      log.arrivals.filter((arrival) => arrival.at >= from && arrival.at < from + windowMs).length;
    const windows = Array.from({ length: Math.floor(STORM.stormMs / windowMs) + 2 }, (_, n) =>
      round(callsIn(stormFrom + n * windowMs) / STORM.retryAfterS, 1),
    );
    const beforeMs = 4_000;
    const callsBefore = log.arrivals.filter(
      (arrival) => arrival.at >= stormFrom - beforeMs && arrival.at < stormFrom,
    );
    return {
      before: round(callsBefore.length / (beforeMs / 1000), 1),
      windows,
      answered: mentions.filter((mention) => run.answerMs(mention) !== undefined).length,
      sent: mentions.length,
    };
  } finally {
    await run.close();
    await stub.close();
  }
}

export async function measureModelLatency(): Promise<Figure[]> {
  const steady = await burst("model-latency", false, 60_000);
  const hangs = await burst("model-latency-hangs", true, 100_000);
  const acks = await acksWhileWaiting();
  const rates = await storm();
  const beside = await measureBurstBesideChatSdk({ atOnce: AT_ONCE, modelMs: MODEL_MS });

  const p50 = steady.answerMs.length > 0 ? median(steady.answerMs) : null;
  const modelMs = steady.modelMsPerTurn.length > 0 ? median(steady.modelMsPerTurn) : null;
  const ratio = p50 !== null && modelMs ? round(p50 / modelMs) : null;
  const hangsP50 = hangs.answerMs.length > 0 ? round(median(hangs.answerMs)) : null;
  const ackP99 = acks.probes.length > 0 ? round(percentile(acks.probes, 99)) : null;
  const afterRatio =
    rates.before > 0 && rates.windows[0] !== undefined ? round(rates.windows[0] / rates.before) : null;
  const pct = (samples: number[], p: number) => (samples.length > 0 ? round(percentile(samples, p)) : "—");
  return [
    {
      key: "answerP50AtModelLatencyRatio",
      value: ratio,
      unit: "×",
      baseline: { label: "model time per turn (ms)", value: modelMs },
      target: { text: "≤ 1.3", met: atMost(ratio, 1.3) },
      note: `${AT_ONCE} mentions at once, model ${MODEL_MS} ms a call: answered ${steady.answered}/${AT_ONCE}; answer p50 ${p50 === null ? "—" : round(p50)} ms, p90 ${pct(steady.answerMs, 90)} ms, max ${pct(steady.answerMs, 100)} ms; at most ${steady.stubMaxInFlight} model calls in flight at the stub; the CLI used ${round(steady.cliCpuMs)} ms of CPU from the mentions to the last answer (${round(steady.cliCpuMs / AT_ONCE, 1)} ms a mention: its two events and its turn)`,
    },
    {
      key: "answerP50WithHangsMs",
      value: hangsP50,
      unit: "ms",
      baseline: { label: "p50 without hangs (ms)", value: p50 === null ? null : round(p50) },
      target: { text: "≤ 2 × p50 without hangs", met: atMost(hangsP50, p50 === null ? null : 2 * p50) },
      note: `every ${HANG_EVERY}th model call hangs, first-token timeout ${FIRST_TOKEN_TIMEOUT_SECONDS} s: answered ${hangs.answered}/${AT_ONCE}; p90 ${pct(hangs.answerMs, 90)} ms, max ${pct(hangs.answerMs, 100)} ms`,
    },
    {
      key: "ackP99MsAt1000InFlightSlowModel",
      value: ackP99,
      unit: "ms",
      baseline: {
        label: "ack p50",
        value: acks.probes.length > 0 ? round(percentile(acks.probes, 50)) : null,
      },
      target: {
        text: "≤ 100 ms, every event acknowledged",
        met: ackP99 !== null && ackP99 <= 100 && acks.failed.length === 0,
      },
      note: `${IN_FLIGHT} mentions waiting on the ${MODEL_MS} ms model (${acks.inFlightAtStart} unanswered when the probes began), then ${PROBES} mentions ${PROBE_GAP_MS} ms apart; not acknowledged with 200: ${acks.failed.length}`,
    },
    {
      key: "providerCallsAfter429Storm",
      value: afterRatio,
      unit: "×",
      baseline: { label: "calls/s before the storm", value: rates.before },
      target: {
        text: "< 1: calls per second drop within one Retry-After",
        met: afterRatio === null ? null : afterRatio < 1,
      },
      note: `${STORM.perSecond} mentions/s, model ${STORM.modelMs} ms; calls/s over the 4 s before the storm as baseline; from 8 s every call answered 429 with Retry-After ${STORM.retryAfterS} s for ${STORM.stormMs / 1000} s. Calls/s per Retry-After window from the storm's start: ${rates.windows.join(", ")} (the last two after it ended); ${rates.answered}/${rates.sent} mentions answered (the rest told the model is not answering)`,
    },
    beside,
  ];
}
