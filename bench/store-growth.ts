import { seedOtherConversations } from "../test/support/hot-path-harness.ts";
import { SlackLoad } from "./slack/slack-load.ts";
import { startSwitchboardSlack } from "./slack/switchboard-slack-bot.ts";
import { atMost, type Figure } from "./support/figures.ts";
import { BENCH_REDIS, deleteKeysUnder, uniqueRedisPrefix } from "./support/redis-keys.ts";
import { median, round } from "./support/stats.ts";
import { sqliteUrl, tempDir } from "./support/temp-dir.ts";

const WARM_UP = 50;
const MESSAGES = 300;
const FEW = 100;
const MANY = 10_000;

type Backend = "sqlite" | "redis";

/** Switchboard on Slack (defaults, memory on) over a fresh store holding `stored` other conversations. */
async function openSeeded(backend: Backend, stored: number) {
  const load = await SlackLoad.start();
  const dir = tempDir("growth");
  const prefix = uniqueRedisPrefix("growth");
  const url = backend === "sqlite" ? sqliteUrl(dir.path) : `${BENCH_REDIS}?prefix=${prefix}`;
  const bot = await startSwitchboardSlack(load.slack, {
    url,
    memory: true,
    prepare: (store) => seedOtherConversations(store, stored),
  });
  return {
    /** One sequential message: ms until its answer was posted; memory's work is waited for after. */
    async turn(label: string): Promise<number> {
      const ms = await load.ask(label);
      await bot.idle();
      return ms;
    },
    async close() {
      await bot.close();
      await load.close();
      dir.remove();
      if (backend === "redis") await deleteKeysUnder(prefix);
    },
  };
}

/**
 * Does a message cost more when the store holds more? The same sequential Slack turns (memory on)
 * on two stores open side by side, one holding 100 and one 10,000 other conversations' records
 * (open and closed requests, live memory sessions: what used to be listed on every turn),
 * interleaved message by message so machine noise hits both alike.
 */
export async function measureStoreGrowth(options: { timeBoxMs: number }): Promise<Figure[]> {
  const figures: Figure[] = [];
  for (const backend of ["sqlite", "redis"] as const) {
    const few = await openSeeded(backend, FEW);
    const many = await openSeeded(backend, MANY);
    const fewMs: number[] = [];
    const manyMs: number[] = [];
    try {
      for (let i = 0; i < WARM_UP; i += 1) {
        await few.turn(`warm ${i}`);
        await many.turn(`warm ${i}`);
      }
      const deadline = performance.now() + options.timeBoxMs;
      for (let i = 0; i < MESSAGES && performance.now() < deadline; i += 1) {
        fewMs.push(await few.turn(`turn ${i}`));
        manyMs.push(await many.turn(`turn ${i}`));
      }
    } finally {
      await few.close();
      await many.close();
    }
    const ratio = round(median(manyMs) / median(fewMs));
    figures.push({
      key: `msPerMessageAt10kStored/At100Stored${backend === "sqlite" ? "Sqlite" : "Redis"}`,
      value: ratio,
      unit: "×",
      baseline: { label: "ms per message at 100 stored", value: round(median(fewMs)) },
      target: { text: "≤ 1.2", met: atMost(ratio, 1.2) },
      note: `${backend}: median ${round(median(manyMs))} ms at 10,000 stored vs ${round(median(fewMs))} ms at 100, ${fewMs.length} messages each, interleaved`,
    });
  }
  return figures;
}
