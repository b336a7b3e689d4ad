import type { Figure } from "./support/figures.ts";
import { atMost } from "./support/figures.ts";
import { instantModel } from "./support/instant.ts";
import { plainGraph } from "./support/plain-graph.ts";
import { BENCH_REDIS, deleteKeysUnder, uniqueRedisPrefix } from "./support/redis-keys.ts";
import { percentile, round } from "./support/stats.ts";
import { openStack, type Stack } from "./support/switchboard-stack.ts";
import { sqliteUrl, tempDir } from "./support/temp-dir.ts";
import { message200 } from "./support/text.ts";

const CONVERSATIONS = 1_000;
/** A first message and a follow-up: fresh and continuing conversations both count. */
const TURNS_PER_CONVERSATION = 2;
const WARM_UP_CONVERSATIONS = 100;

export interface OverheadOptions {
  /** Stop starting new conversations after this long (the figures then rest on fewer samples). */
  readonly timeBoxMs: number;
}

/** Milliseconds the engine adds to one message: accept → post, minus the model's own time. */
async function engineTurn(stack: Stack, model: ReturnType<typeof instantModel>, place: string, turn: number) {
  const modelBefore = model.stats.busyMs;
  const responderBefore = stack.responderMs();
  const total = await stack.adapter.ask(place, message200("question", turn));
  // The next message starts only after this turn's bookkeeping (index writes, lock release).
  await stack.engine.idle();
  const modelMs = model.stats.busyMs - modelBefore;
  return { overhead: total - modelMs, pipeline: total - (stack.responderMs() - responderBefore) };
}

/**
 * One message at a time (so no sample waits behind another), the three set-ups interleaved turn
 * by turn, so that whatever else the machine is doing slows all three alike.
 */
export async function measureOverhead(options: OverheadOptions): Promise<Figure[]> {
  const dir = tempDir("overhead");
  const redisPrefix = uniqueRedisPrefix("overhead");
  const sqliteModel = instantModel();
  const redisModel = instantModel();
  const plainModel = instantModel();
  const sqlite = await openStack({ url: sqliteUrl(dir.path), models: { main: sqliteModel } });
  const redis = await openStack({
    url: `${BENCH_REDIS}?prefix=${redisPrefix}`,
    models: { main: redisModel },
  });
  const plain = plainGraph(plainModel);
  const samples = {
    sqlite: [] as number[],
    pipeline: [] as number[],
    redis: [] as number[],
    plain: [] as number[],
  };
  let conversations = 0;
  try {
    for (let i = 0; i < WARM_UP_CONVERSATIONS; i++) {
      await engineTurn(sqlite, sqliteModel, `warm-${i}`, i);
      await engineTurn(redis, redisModel, `warm-${i}`, i);
      await plain.turn(`warm-${i}`, message200("question", i));
    }
    const deadline = performance.now() + options.timeBoxMs;
    for (; conversations < CONVERSATIONS && performance.now() < deadline; conversations++) {
      const place = `c-${conversations}`;
      for (let turn = 0; turn < TURNS_PER_CONVERSATION; turn++) {
        const onSqlite = await engineTurn(sqlite, sqliteModel, place, turn);
        samples.sqlite.push(onSqlite.overhead);
        samples.pipeline.push(onSqlite.pipeline);
        samples.redis.push((await engineTurn(redis, redisModel, place, turn)).overhead);
        const modelBefore = plainModel.stats.busyMs;
        const ms = await plain.turn(place, message200("question", turn));
        samples.plain.push(ms - (plainModel.stats.busyMs - modelBefore));
      }
    }
  } finally {
    await sqlite.close();
    await redis.close();
    await deleteKeysUnder(redisPrefix);
    dir.remove();
  }

  const p50 = round(percentile(samples.sqlite, 50), 3);
  const p99 = round(percentile(samples.sqlite, 99), 3);
  const redisP50 = round(percentile(samples.redis, 50), 3);
  const baselineP50 = round(percentile(samples.plain, 50), 3);
  const sized =
    conversations === CONVERSATIONS
      ? `${CONVERSATIONS} conversations × ${TURNS_PER_CONVERSATION} messages`
      : `time-boxed: ${conversations} of ${CONVERSATIONS} conversations × ${TURNS_PER_CONVERSATION} messages`;
  const baseline = { label: "baselineP50Ms", value: baselineP50 };
  return [
    {
      key: "overheadP50Ms",
      value: p50,
      unit: "ms",
      baseline,
      target: { text: "≤ 1 ms", met: atMost(p50, 1) },
      note: `${sized}, one at a time; SQLite store and checkpoints; single-agent team`,
    },
    {
      key: "overheadP99Ms",
      value: p99,
      unit: "ms",
      baseline: { label: "baseline p99", value: round(percentile(samples.plain, 99), 3) },
      target: { text: "≤ 5 ms", met: atMost(p99, 5) },
    },
    {
      key: "overheadRedisP50Ms",
      value: redisP50,
      unit: "ms",
      baseline,
      target: { text: "≤ 3 ms", met: atMost(redisP50, 3) },
      note: "Redis store and Redis checkpoints (one URL), local server",
    },
    {
      key: "overheadPipelineP50Ms",
      value: round(percentile(samples.pipeline, 50), 3),
      unit: "ms",
      note: "breakdown: the engine's own stages on SQLite (admit, dedupe, queue, lock, deliver), without the team run",
    },
    {
      key: "baselineP50Ms",
      value: baselineP50,
      unit: "ms",
      note: "plain one-node LangGraph graph + MemorySaver, same turns, graph.invoke wall time minus model time",
    },
  ];
}
