import { openStore, type Turn } from "@switchboard/core";
import { scriptedResponder, streamedAnswer } from "@switchboard/core/testing";
import { BotUnderTest } from "../test/support/discord/bot-under-test.ts";
import { createWorld, startBot } from "../test/support/matrix/bot-fixture.ts";
import { startSlackBot } from "../test/support/slack/slack-bot.ts";
import { BOT_USER_ID, GENERAL } from "../test/support/slack/workspace-state.ts";
import { atMost, type Figure } from "./support/figures.ts";
import { median, round } from "./support/stats.ts";

const SAMPLES = 7;
const PIECES = Array.from({ length: 40 }, (_, index) => `word${index} `);
const PACE_MS = 20;
/** How often the stand-in's state is looked at: the resolution of every sample. */
const POLL_MS = 1;

/** One platform stand-in with the real adapter and engine: ask, then see the bot's first message. */
interface StreamingRig {
  readonly ask: (text: string) => Promise<void>;
  /** How many answers (first messages, edits not counted) the bot has posted so far. */
  readonly answers: () => number;
  readonly idle: () => Promise<void>;
  readonly close: () => Promise<void>;
}

type Answer = (turn: Turn) => Promise<string>;

async function discordRig(answer: Answer): Promise<StreamingRig> {
  const bot = await BotUnderTest.start();
  bot.answer = answer;
  const dm = bot.fake.dmWith();
  return {
    ask: async (text) => {
      bot.fake.say({ channel: dm, content: text });
    },
    answers: () => bot.postsIn(dm.id).length,
    idle: () => bot.idle(),
    close: () => bot.close(),
  };
}

async function matrixRig(answer: Answer): Promise<StreamingRig> {
  const world = await createWorld();
  const store = await openStore("memory://");
  const bot = await startBot(world, store, { answerTurn: answer });
  const isEdit = (content: Record<string, unknown>) =>
    (content["m.relates_to"] as { rel_type?: string } | undefined)?.rel_type === "m.replace";
  return {
    ask: async (text) => {
      world.homeserver.userSends(world.dm, world.alice, { msgtype: "m.text", body: text });
    },
    answers: () => world.homeserver.eventsFrom(world.bot).filter((event) => !isEdit(event.content)).length,
    idle: () => bot.engine.idle(),
    close: async () => {
      await bot.stop();
      await world.homeserver.close();
      await store.close();
    },
  };
}

async function slackRig(answer: Answer): Promise<StreamingRig> {
  const bot = await startSlackBot({ responder: scriptedResponder(answer) });
  return {
    ask: async (text) => {
      await bot.slack.say(GENERAL, `<@${BOT_USER_ID}> ${text}`);
    },
    answers: () => bot.slack.state.botMessages().length,
    idle: () => bot.engine.idle(),
    close: () => bot.close(),
  };
}

/** Model first token → the stand-in holding the bot's first text of that answer, per sample. */
async function firstVisibleSamples(start: (answer: Answer) => Promise<StreamingRig>): Promise<number[]> {
  let firstPieceAt = 0;
  const rig = await start(
    streamedAnswer({ pieces: PIECES, paceMs: PACE_MS, onFirstPiece: (at) => (firstPieceAt = at) }),
  );
  const samples: number[] = [];
  try {
    for (let index = 0; index < SAMPLES; index++) {
      const before = rig.answers();
      firstPieceAt = 0;
      await rig.ask(`question ${index}`);
      while (rig.answers() === before) await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      samples.push(Date.now() - firstPieceAt);
      await rig.idle();
    }
  } finally {
    await rig.close();
  }
  return samples;
}

export async function measureStreaming(): Promise<Figure[]> {
  const rigs = { Slack: slackRig, Discord: discordRig, Matrix: matrixRig };
  const figures: Figure[] = [];
  for (const [platform, rig] of Object.entries(rigs)) {
    const samples = await firstVisibleSamples(rig);
    const value = round(median(samples), 1);
    figures.push({
      key: `firstVisibleTextMs${platform}`,
      value,
      unit: "ms",
      target: { text: "≤ 300 ms", met: atMost(value, 300) },
      note: `median of ${SAMPLES}: scripted model streaming ${PIECES.length} pieces every ${PACE_MS} ms, real ${platform} SDK against its stand-in; first piece → the stand-in stores the bot's first message (polled every ${POLL_MS} ms)`,
    });
  }
  return figures;
}
