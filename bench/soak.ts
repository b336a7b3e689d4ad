import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Figure } from "./support/figures.ts";
import { atMost } from "./support/figures.ts";
import { instantModel } from "./support/instant.ts";
import { memoryExtension } from "./support/memory.ts";
import { percentile, round } from "./support/stats.ts";
import { openStack } from "./support/switchboard-stack.ts";
import { sqliteUrl, tempDir } from "./support/temp-dir.ts";
import { message200 } from "./support/text.ts";

const MESSAGES = 100_000;
/** Few enough that the settling below brings every thread to its steady state in about 90 s. */
const THREADS = 1_000;
/**
 * Messages one visit sends its thread, one after another (each waits for its answer): a session of
 * this many turns, which goes quiet and is archived before the thread's next visit.
 */
const VISIT = 5;
const IN_FLIGHT = 32;
/**
 * Visits sent after the warm-up and before measuring: three to every thread. Archiving comes up to
 * the visits' pace, and every thread reaches its steady state — a thread's checkpoints stop growing
 * by its third visit (five kept per namespace; until a namespace holds five, storing a checkpoint
 * prunes nothing), so a first tenth of threads that do not prune yet would be cheaper than the rest.
 */
const SETTLE_MESSAGES = 3 * VISIT * THREADS;
const SAMPLE_EVERY_MS = 2_000;
/** Memory's clock runs this much faster than the wall clock: a day of idle-archiving in ~6 minutes. */
const MEMORY_TIME_FACTOR = 240;
/** Memory's idle time (30 minutes, its default) on the wall clock, with a second to spare. */
const IDLE_WALL_MS = (30 * 60_000) / MEMORY_TIME_FACTOR + 1_000;

export interface SoakOptions {
  /** Stops starting new messages after this long and is judged on what it did. */
  readonly timeBoxMs: number;
}

interface Sample {
  readonly atMs: number;
  readonly rssMb: number;
  readonly heapMb: number;
  readonly done: number;
  /** Process CPU time so far (user + system), ms. */
  readonly cpuMs: number;
  /** Bytes the process has written so far (Linux `/proc/self/io` wchar: the store's files, WAL included); null elsewhere. */
  readonly writtenBytes: number | null;
}

/** Least-squares slope of y over x. */
function slope(points: readonly { x: number; y: number }[]): number {
  const n = points.length;
  if (n < 2) return 0;
  const meanX = points.reduce((sum, p) => sum + p.x, 0) / n;
  const meanY = points.reduce((sum, p) => sum + p.y, 0) / n;
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.x - meanX) * (p.y - meanY);
    den += (p.x - meanX) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

function writtenBytes(): number | null {
  try {
    const match = /^wchar: (\d+)$/m.exec(readFileSync("/proc/self/io", "utf8"));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

/** What a sample-to-sample quantity costs per message between the samples nearest two message counts. */
function perMessage(
  samples: readonly Sample[],
  from: number,
  to: number,
  of: (one: Sample) => number | null,
) {
  const nearest = (done: number) =>
    samples.reduce((best, one) => (Math.abs(one.done - done) < Math.abs(best.done - done) ? one : best));
  const [start, end] = [nearest(from), nearest(to)];
  const [a, b] = [of(start), of(end)];
  return a === null || b === null || end.done <= start.done ? null : (b - a) / (end.done - start.done);
}

function fileBytes(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/**
 * A day of traffic, compressed: up to 100,000 messages over 1,000 threads, in visits of 5
 * messages (a session of 5 turns), the threads visited round-robin so every thread keeps growing
 * (up to 20 sessions, 100 turns each), 32 visits at once; memory on with its clock running 240× so each
 * visit's session goes quiet and is archived before the thread's next visit, as in a day; SQLite
 * store and checkpoints. Measured after a warm-up in which every thread gets its first message and
 * that session is archived, so every measured message does what a workspace with history does, and
 * three visits to every thread, so the sessions measured visits leave are archived at the visits'
 * pace from the first measured message on (until the first visits' sessions have been quiet for the
 * idle time, nothing is archived: a first tenth with that in it did less work than the rest) and
 * every thread prunes its checkpoints as it will to the end (see SETTLE_MESSAGES).
 * RSS and heap are sampled every 2 s, after a full GC when the process runs with --expose-gc (as
 * `pnpm bench` does): without it the heap holds whatever garbage V8 has not collected yet, and its
 * growth says when V8 collects rather than what the process keeps. The figures are the RSS slope
 * after the warm-up fifth, the heap slope per message over the same samples, and p99 accept → post
 * of the last tenth of the messages ÷ the first tenth.
 */
export async function measureSoak(options: SoakOptions): Promise<Figure[]> {
  const dir = tempDir("soak");
  const startedAt = Date.now();
  const memoryClock = { now: () => startedAt + (Date.now() - startedAt) * MEMORY_TIME_FACTOR };
  const memory = memoryExtension({ clock: memoryClock });
  const stack = await openStack({
    url: sqliteUrl(dir.path),
    models: { main: instantModel() },
    extend: memory.extend,
  });
  const samples: Sample[] = [];
  const latencies: number[] = [];
  let next = 0;
  let sweeping: Promise<unknown> = Promise.resolve();
  let sweepErrors = 0;
  const sweeper = setInterval(() => {
    sweeping = sweeping
      .then(() => memory.memory().sweeper.sweep())
      .catch(() => {
        sweepErrors += 1;
      });
  }, 5_000);
  // Warm-up, not measured: every thread's first message, then a quiet spell long enough (in
  // memory's time) for each of those sessions to be archived. What follows is the steady state of a
  // workspace with history — a new session per visit that starts from the last one's context and
  // archives it after — so the first and the last tenth compare like with like; without it the first
  // tenth would be threads' first messages ever, which carry no memory work at all.
  const warmUpStarted = performance.now();
  let warm = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (warm < THREADS) {
        const thread = warm++;
        await stack.adapter.ask(`soak-${thread}`, message200("question", thread));
      }
    }),
  );
  await stack.engine.idle();
  await new Promise((resolve) => setTimeout(resolve, IDLE_WALL_MS));
  await sweeping;
  await memory.memory().sweeper.sweep();
  await memory.memory().idle();
  /** Sends visits until `end` messages have been sent or the deadline passed, threads round-robin. */
  const sendVisits = (end: number, deadline: number, record?: number[]) =>
    Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < end && performance.now() < deadline) {
          const first = next;
          next += VISIT;
          const thread = (first / VISIT) % THREADS;
          for (let index = first; index < first + VISIT; index++) {
            const ms = await stack.adapter.ask(`soak-${thread}`, message200("question", THREADS + index));
            record?.push(ms);
          }
        }
      }),
    );
  // Settling, not measured either: the first visits' sessions go quiet only the idle time after
  // them, so for that long nothing is archived at all. Once these have, archiving runs at the pace
  // of the visits, as it does to the end.
  await sendVisits(SETTLE_MESSAGES, Number.POSITIVE_INFINITY);
  const warmUpSeconds = (performance.now() - warmUpStarted) / 1000;
  const started = performance.now();
  const collected = globalThis.gc !== undefined;
  const sample = () => {
    globalThis.gc?.();
    const usage = process.memoryUsage();
    const cpu = process.cpuUsage();
    samples.push({
      atMs: performance.now() - started,
      rssMb: usage.rss / 2 ** 20,
      heapMb: usage.heapUsed / 2 ** 20,
      done: latencies.length,
      cpuMs: (cpu.user + cpu.system) / 1000,
      writtenBytes: writtenBytes(),
    });
  };
  sample();
  const sampler = setInterval(sample, SAMPLE_EVERY_MS);
  const deadline = started + options.timeBoxMs;
  try {
    await sendVisits(SETTLE_MESSAGES + MESSAGES, deadline, latencies);
    await stack.engine.idle();
    await memory.memory().idle();
    sample();
  } finally {
    clearInterval(sampler);
    clearInterval(sweeper);
    await sweeping;
  }
  const storeBytes =
    fileBytes(join(dir.path, "switchboard.db")) +
    fileBytes(join(dir.path, "switchboard.db-wal")) +
    fileBytes(join(dir.path, "switchboard.db-shm"));
  const unanswered = stack.adapter.unanswered;
  await stack.close();
  dir.remove();

  const done = latencies.length;
  const tenth = Math.max(1, Math.floor(done / 10));
  const firstP99 = percentile(latencies.slice(0, tenth), 99);
  const lastP99 = percentile(latencies.slice(done - tenth), 99);
  const ratio = round(lastP99 / firstP99, 2);
  const steady = samples.filter((one) => one.atMs >= samples.at(-1)!.atMs / 5);
  const rssSlope = round(slope(steady.map((one) => ({ x: one.atMs / 3_600_000, y: one.rssMb }))), 1);
  const heapSlope = round(slope(steady.map((one) => ({ x: one.atMs / 3_600_000, y: one.heapMb }))), 1);
  const heapBytesPerMessage = round(
    slope(steady.map((one) => ({ x: one.done, y: one.heapMb * 2 ** 20 }))),
    0,
  );
  const firstTenth = { from: 0, to: tenth };
  const lastTenth = { from: done - tenth, to: done };
  // The samples taken while messages were sent: the last one follows the wind-down (memory's queued work).
  const sending = samples.slice(0, -1);
  const cpuFirst = perMessage(sending, firstTenth.from, firstTenth.to, (one) => one.cpuMs);
  const cpuLast = perMessage(sending, lastTenth.from, lastTenth.to, (one) => one.cpuMs);
  const writtenFirst = perMessage(sending, firstTenth.from, firstTenth.to, (one) => one.writtenBytes);
  const writtenLast = perMessage(sending, lastTenth.from, lastTenth.to, (one) => one.writtenBytes);
  const kb = (bytes: number | null) => (bytes === null ? "n/a" : `${round(bytes / 1024, 1)} KB`);
  const ms = (value: number | null) => (value === null ? "n/a" : `${round(value, 2)} ms`);
  const meanRss = steady.reduce((sum, one) => sum + one.rssMb, 0) / Math.max(1, steady.length);
  const seconds = (performance.now() - started) / 1000;
  const boxed = done < MESSAGES ? `time-boxed: ${done} of ${MESSAGES} messages` : `${done} messages`;
  const tenths = [0, 0.25, 0.5, 0.75, 1].map(
    (at) => samples[Math.min(samples.length - 1, Math.floor(at * (samples.length - 1)))]!,
  );
  const trail = tenths
    .map(
      (one) =>
        `${round(one.atMs / 1000, 0)} s: RSS ${round(one.rssMb, 0)} MB, heap ${round(one.heapMb, 0)} MB, ${one.done} done`,
    )
    .join("; ");
  const sampled = collected
    ? "RSS and heap sampled after a full GC"
    : "RSS and heap sampled without GC (no --expose-gc)";
  const note = `${boxed} over ${THREADS} threads in ${round(seconds, 0)} s (${round(done / seconds, 1)}/s) after an unmeasured warm-up (each thread's first message and its session archived, then ${SETTLE_MESSAGES} messages in visits; ${round(warmUpSeconds, 0)} s), visits of ${VISIT} messages, ${IN_FLIGHT} visits at once, memory on (clock ×${MEMORY_TIME_FACTOR}, idle sweep every 5 s), SQLite; ${unanswered} unanswered, ${sweepErrors} failed sweeps. ${sampled}. Over time: ${trail}`;
  // Flat within noise: the RSS slope after the warm-up, in MB per hour, against a tenth of the mean RSS per hour.
  const rssLimit = round(meanRss / 10, 0);
  return [
    {
      key: "soakRssSlopeMbPerHour",
      value: rssSlope,
      unit: "MB/h",
      baseline: { label: "mean RSS after warm-up (MB)", value: round(meanRss, 0) },
      target: {
        text: `≤ ${rssLimit} MB/h (a tenth of the mean RSS per hour)`,
        met: atMost(rssSlope, rssLimit),
      },
      note: `${note}. Heap slope ${heapSlope} MB/h`,
    },
    {
      key: "soakHeapBytesPerMessage",
      value: heapBytesPerMessage,
      unit: "B",
      note: `least-squares slope of the heap (${collected ? "after a full GC" : "without GC: garbage included"}) over messages answered, after the warm-up fifth: what the process keeps per message`,
    },
    {
      key: "soakP99LastVsFirst",
      value: ratio,
      unit: "×",
      baseline: { label: "p99 of the first tenth (ms)", value: round(firstP99, 1) },
      target: { text: "≤ 1.2", met: atMost(ratio, 1.2) },
      note: `p99 of the last tenth ${round(lastP99, 1)} ms. Per message, first tenth → last tenth (counts, not wall time): CPU time ${ms(cpuFirst)} → ${ms(cpuLast)}, bytes written ${kb(writtenFirst)} → ${kb(writtenLast)}`,
    },
    {
      key: "soakStoreBytesPerMessage",
      value: done === 0 ? null : round(storeBytes / done, 0),
      unit: "B",
      note: `SQLite file with its WAL after ${done} messages: ${round(storeBytes / 2 ** 20, 1)} MB (checkpoints, memory entries and archive, run-steps log, requests)`,
    },
  ];
}
