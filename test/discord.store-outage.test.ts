/**
 * Discord messages that arrive while the store (Redis) is down: the gateway delivers each once and
 * never again, the engine cannot make them durable and refuses them, and the adapter reads them
 * back from the channel's history once the engine takes messages again — each answered once, the
 * messages taken before the outage not answered a second time.
 */
import { type InboundMessage, openStore } from "@switchboard/core";
import { createMemoryLogger, waitFor } from "@switchboard/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { createDiscordAdapter, type DiscordAdapter } from "../packages/discord/src/index.ts";
import { RestartableRedis } from "./services/restartable-redis.ts";
import { BotUnderTest } from "./support/discord/bot-under-test.ts";
import { FakeDiscord } from "./support/discord/fake-discord.ts";

let bot: BotUnderTest | undefined;
let redis: RestartableRedis | undefined;
let adapter: DiscordAdapter | undefined;
let fakeDiscord: FakeDiscord | undefined;
afterEach(async () => {
  await bot?.close();
  await redis?.close();
  await adapter?.stop();
  await fakeDiscord?.close();
  bot = undefined;
  redis = undefined;
  adapter = undefined;
  fakeDiscord = undefined;
});

describe("Discord messages sent while the store is down", () => {
  it("are read back from the channel history once Redis returns and answered once", {
    timeout: 120_000,
  }, async () => {
    const server = await RestartableRedis.start({ keepsData: true });
    if (!server) throw new Error("redis-server is not installed");
    redis = server;
    const logger = createMemoryLogger();
    const store = await openStore(`${server.url}/?prefix=discord-outage:`, { logger });
    const started = await BotUnderTest.start({}, logger, { store });
    bot = started;
    const { fake } = started;

    const before = fake.say({ content: `${fake.mention} before the outage` });
    await started.waitForPostsIn(before.id, 1);
    const thread = fake.thread(before.id);
    if (!thread) throw new Error("no thread was started");

    await server.stop();
    // A new question in the channel, and a follow-up in the thread answered before.
    const inChannel = fake.say({ content: `${fake.mention} during the outage` });
    const inThread = fake.say({ channel: thread, content: "a follow-up during the outage" });
    const refused = () =>
      logger.lines.filter((line) => line.message.startsWith("could not hand a Discord message")).length;
    await waitFor("both messages refused by the engine", () => refused() >= 2, 30_000);
    expect(started.turns.map((turn) => turn.message.id)).toEqual([before.id]);

    await server.resume();
    const [answer] = await started.waitForPostsIn(inChannel.id, 1);
    expect(answer?.content).toBe("echo: during the outage");
    const [, followUp] = await waitFor(
      "the follow-up answered in the thread",
      () => {
        const posts = started.postsIn(thread.id);
        return posts.length >= 2 ? posts : undefined;
      },
      60_000,
    );
    expect(followUp?.content).toBe("echo: a follow-up during the outage");
    await waitFor(
      "both channels read back",
      () => logger.lines.filter((line) => line.message.startsWith("read back Discord messages")).length >= 2,
      30_000,
    );
    await started.idle();

    // Each message answered once, the one taken before the outage not again.
    const answered = started.turns.map((turn) => turn.message.id).sort();
    expect(answered).toEqual([before.id, inChannel.id, inThread.id].sort());
    expect(started.postsIn(thread.id)).toHaveLength(2);
    expect(started.postsIn(inChannel.id)).toHaveLength(1);
  });

  it("a gateway connection stopped and started again in the process (a cluster ingress leading again) reads back what was refused and what was sent meanwhile", {
    timeout: 60_000,
  }, async () => {
    const fake = await FakeDiscord.start();
    fakeDiscord = fake;
    const logger = createMemoryLogger();
    const started = await createDiscordAdapter({ token: fake.token, apiUrl: fake.apiUrl }, { logger });
    adapter = started;
    // The engine's side: takes each message once (its dedupe), or refuses while the store is down.
    const taken: string[] = [];
    let storeDown = false;
    const sink = async (message: InboundMessage) => {
      if (storeDown) throw new Error("the store is unavailable");
      if (!taken.includes(message.id)) taken.push(message.id);
    };
    await started.start(sink);

    const first = fake.say({ content: `${fake.mention} first` });
    await waitFor("the first message taken", () => taken.includes(first.id));
    storeDown = true;
    const refused = fake.say({ content: `${fake.mention} refused before the stop` });
    await waitFor(
      "the message refused",
      () => logger.lines.some((line) => line.message.startsWith("could not hand a Discord message")),
      10_000,
    );
    // The ingress lost its lease: the gateway connection stops; a message is sent meanwhile.
    await started.stop();
    const unheard = fake.say({ content: `${fake.mention} sent while nobody listened` });
    storeDown = false;
    await started.start(sink);

    await waitFor("both read back", () => taken.includes(refused.id) && taken.includes(unheard.id), 30_000);
    expect(taken).toEqual([first.id, refused.id, unheard.id]);
  });
});
