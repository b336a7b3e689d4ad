/**
 * `burstAnswerP50VsChatSdk`, measured by the `model-latency` group: its burst (many mentions at
 * once, a slow model) sent by the side-by-side's load to the Chat SDK + LangGraph bot and to
 * `switchboard start` with its defaults, each in its own process, rounds interleaved: our median of
 * the rounds' p50 ÷ theirs. The burst's ratio to the model's time depends on the machine (it waits
 * for the CPU); this one says what the same machine does without Switchboard.
 */
import { ModelStub } from "../test/support/model/model-stub.ts";
import { driveLoad, SlackLoad } from "./slack/slack-load.ts";
import { type Setup, startBot } from "./slack-side-by-side.ts";
import type { Figure } from "./support/figures.ts";
import { median, round } from "./support/stats.ts";
import { tempDir } from "./support/temp-dir.ts";
import { message200 } from "./support/text.ts";

/** Rounds (each set-up once a round, order alternating). */
const ROUNDS = 3;
const WARM_UP = 20;

export interface Burst {
  readonly atOnce: number;
  readonly modelMs: number;
}

/**
 * One bot, fresh process: a short warm-up, then `burst.atOnce` mentions at once; the p50 of their
 * answer times. A mention never answered leaves the group to its time limit, as in the side-by-side.
 */
async function burstP50(setup: Extract<Setup, "chat-sdk" | "defaults">, burst: Burst): Promise<number> {
  const dir = tempDir(`model-latency-${setup}`);
  let answers = 0;
  const model = await ModelStub.start(() => ({
    kind: "answer",
    text: message200("answer", ++answers),
    latencyMs: burst.modelMs,
  }));
  const load = await SlackLoad.start();
  const { bot, cleanUp } = await startBot(setup, load, model, dir.path);
  try {
    await driveLoad(WARM_UP, 5, 60_000, (i) => load.ask(`warm ${i}`));
    await bot.process.quiet();
    const run = await driveLoad(burst.atOnce, burst.atOnce, 60_000, (i) => load.ask(`burst ${i}`));
    return median(run.latencies);
  } finally {
    await cleanUp();
    await load.close();
    await model.close();
    dir.remove();
  }
}

export async function measureBurstBesideChatSdk(burst: Burst): Promise<Figure> {
  const ours: number[] = [];
  const theirs: number[] = [];
  for (let index = 0; index < ROUNDS; index += 1) {
    const order: Array<"chat-sdk" | "defaults"> =
      index % 2 === 0 ? ["chat-sdk", "defaults"] : ["defaults", "chat-sdk"];
    for (const setup of order) (setup === "defaults" ? ours : theirs).push(await burstP50(setup, burst));
  }
  const theirP50 = median(theirs);
  const toModel = (p50s: number[]) => p50s.map((ms) => round(ms / burst.modelMs)).join(", ");
  return {
    key: "burstAnswerP50VsChatSdk",
    value: round(median(ours) / theirP50),
    unit: "×",
    baseline: { label: "Chat SDK + LangGraph burst p50 (ms)", value: round(theirP50) },
    note: `${burst.atOnce} mentions at once, model ${burst.modelMs} ms a call, each bot in its own process (Switchboard: \`switchboard start\` with its defaults, memory on); ${ROUNDS} interleaved rounds, medians of each round's p50. Ratio of p50 to the model's time per round: Switchboard ${toModel(ours)}, the Chat SDK bot ${toModel(theirs)}`,
  };
}
