/**
 * Where a burst's time goes, in wall time: the model-latency group's burst (200 mentions at once, a
 * 2 s model, `switchboard start` with memory on, Slack HTTP mode) with phase-marks.ts loaded into
 * the CLI. Prints, per run, when the CLI received and acknowledged the events, sent its model calls,
 * had their answers and posted them (per 100 ms from the first mention, then percentiles), so a
 * change to intake, to the turns before their model call or to the work after the answer shows
 * where it moved the answer's time. No profiler runs: the times are the CLI's own.
 *
 *   node bench/slack/burst-phases.ts [runs]
 */
import { readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { shortAnswer, tokenOf } from "../../test/support/crash/scripted-answers.ts";
import type { ChatRequest } from "../../test/support/model/chat-request.ts";
import { ModelStub } from "../../test/support/model/model-stub.ts";
import { SlackCli } from "../support/slack-cli.ts";
import { median, percentile, round } from "../support/stats.ts";
import type { PhaseKind, PhaseMark } from "./phase-marks.ts";

const AT_ONCE = 200;
const MODEL_MS = 2_000;
const BUCKET_MS = 100;
const PHASE_MARKS = fileURLToPath(new URL("./phase-marks.ts", import.meta.url));

const runs = Number(process.argv[2] ?? "1");
if (!Number.isInteger(runs) || runs < 1) throw new Error("usage: burst-phases.ts [runs]");

const epochNow = () => performance.timeOrigin + performance.now();

/** Starts the CLI with phase-marks.ts loaded (its environment is this process's, as CliProcess passes it on). */
async function startMarkedCli(stub: ModelStub, marksFile: string): Promise<SlackCli> {
  const before = { options: process.env.NODE_OPTIONS, file: process.env.PHASE_MARKS_FILE };
  process.env.NODE_OPTIONS = `${before.options ?? ""} --import ${PHASE_MARKS}`.trim();
  process.env.PHASE_MARKS_FILE = marksFile;
  try {
    return await SlackCli.start({
      name: "burst-phases",
      model: { ...stub.modelConfig(), firstTokenTimeoutSeconds: 30 },
      extra: { memory: { enabled: true } },
    });
  } finally {
    if (before.options === undefined) delete process.env.NODE_OPTIONS;
    else process.env.NODE_OPTIONS = before.options;
    if (before.file === undefined) delete process.env.PHASE_MARKS_FILE;
    else process.env.PHASE_MARKS_FILE = before.file;
  }
}

/** Milliseconds after `t0` of the marks of one kind, on paths containing `path`, in order. */
function timesOf(marks: readonly PhaseMark[], t0: number, kind: PhaseKind, path = ""): number[] {
  return marks
    .filter(([, k, p]) => k === kind && p.includes(path))
    .map(([at]) => at - t0)
    .sort((a, b) => a - b);
}

const spread = (times: readonly number[]) =>
  times.length === 0
    ? "none"
    : `p10 ${round(percentile(times, 10))}, p50 ${round(median(times))}, p90 ${round(percentile(times, 90))}, last ${round(times.at(-1) ?? 0)}`;

for (let run = 1; run <= runs; run++) {
  const marksFile = join(tmpdir(), `switchboard-burst-phases-${process.pid}-${run}`);
  const stub = await ModelStub.start((request: ChatRequest) => ({
    kind: "answer",
    text: shortAnswer(tokenOf(request)),
    latencyMs: MODEL_MS,
  }));
  const cli = await startMarkedCli(stub, marksFile);
  const pid = cli.cli.pid;
  let answerMs: number[] = [];
  let t0 = 0;
  try {
    t0 = epochNow();
    const mentions = Array.from({ length: AT_ONCE }, (_, i) =>
      cli.mention(`please help with q${String(i).padStart(3, "0")}`),
    );
    await Promise.all(mentions.map((mention) => mention.delivered));
    await cli.waitForAnswers(mentions, 60_000);
    answerMs = mentions.map((mention) => cli.answerMs(mention)).filter((ms) => ms !== undefined);
  } finally {
    // The marks are written as the CLI exits.
    await cli.close();
    await stub.close();
  }
  const written = `${marksFile}.${pid}`;
  const marks = JSON.parse(readFileSync(written, "utf8")) as PhaseMark[];
  rmSync(written, { force: true });

  const events = timesOf(marks, t0, "in", "/slack/events");
  const acks = timesOf(marks, t0, "ack", "/slack/events");
  const calls = timesOf(marks, t0, "out", "/chat/completions");
  const answers = timesOf(marks, t0, "end", "/chat/completions");
  const posts = timesOf(marks, t0, "out", "chat.postMessage");
  // The k-th answer against the k-th post: how far posting runs behind the answers arriving.
  const lag = posts.slice(0, answers.length).map((post, k) => post - (answers[k] ?? post));

  console.log(
    `run ${run}: answered ${answerMs.length}/${AT_ONCE}, answer p50 ${round(median(answerMs))} ms (${round(median(answerMs) / MODEL_MS)} × the model's ${MODEL_MS} ms), p90 ${round(percentile(answerMs, 90))} ms`,
  );
  console.log(`  events in    ${spread(events)} ms after the first mention (${events.length})`);
  console.log(`  acknowledged ${spread(acks)}`);
  console.log(`  model calls  ${spread(calls)} (${calls.length})`);
  console.log(`  answers back ${spread(answers)}`);
  console.log(`  posts        ${spread(posts)}`);
  console.log(`  answer → post, k-th against k-th: ${spread(lag)}`);
  const last = Math.max(
    ...[...events, ...calls, ...answers, ...posts].map((ms) => Math.floor(ms / BUCKET_MS)),
  );
  console.log(`  per ${BUCKET_MS} ms: events in / acknowledged / calls out / answers back / posts out`);
  const count = (times: readonly number[], bucket: number) =>
    times.filter((ms) => Math.floor(ms / BUCKET_MS) === bucket).length;
  for (let bucket = 0; bucket <= last; bucket++) {
    const row = [events, acks, calls, answers, posts].map((times) => count(times, bucket));
    if (row.some((n) => n > 0))
      console.log(
        `  ${String(bucket * BUCKET_MS).padStart(6)} ${row.map((n) => String(n).padStart(4)).join(" ")}`,
      );
  }
}
