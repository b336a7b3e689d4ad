import { afterEach, describe, expect, it } from "vitest";
import { waitFor } from "../packages/core/src/testing/index.ts";
import { BotUnderTest } from "./support/discord/bot-under-test.ts";

describe("Discord places: inline answers, allowlists, typing", () => {
  let bot: BotUnderTest | undefined;
  afterEach(async () => {
    await bot?.close();
    bot = undefined;
  });

  it("with autoThread off, answers inline as replies and follows a reply chain to the bot", async () => {
    bot = await BotUnderTest.start({ autoThread: false });
    const { fake } = bot;
    const general = fake.world.general.id;
    const question = fake.say({ content: `${fake.mention} inline please` });
    const [answer] = await bot.waitForPostsIn(general, 1);
    expect(answer).toMatchObject({ content: "echo: inline please", referenceId: question.id });
    expect(fake.thread(question.id)).toBeUndefined();
    expect(fake.requestsTo("POST", /\/threads$/)).toEqual([]);
    await bot.idle();

    const reply = fake.say({ content: "and then?", replyTo: answer?.id ?? "" });
    const [, second] = await bot.waitForPostsIn(general, 2);
    expect(second).toMatchObject({ content: "echo: and then?", referenceId: reply.id });
    expect((await bot.turnFor(reply.id)).key).toBe((await bot.turnFor(question.id)).key);

    const chatter = fake.say({ content: "unrelated chatter" });
    expect(await bot.outcomeOf(chatter.id)).toEqual({ accepted: false, reason: "not-addressed" });
  });

  it("serves only the allowlisted channels: elsewhere it neither answers nor hands anything to the engine", async () => {
    bot = await BotUnderTest.start((fake) => ({ channelIds: [fake.world.general.id], globalCommands: true }));
    const { fake } = bot;
    const outside = fake.say({ channel: fake.world.random, content: `${fake.mention} are you here?` });
    const inside = fake.say({ content: `${fake.mention} and here?` });
    await bot.waitForPostsIn(inside.id, 1);
    await bot.idle();
    expect(bot.outcomes.map((entry) => entry.message.id)).not.toContain(outside.id);
    expect(bot.postsIn(fake.world.random.id)).toEqual([]);
    expect(fake.thread(outside.id)).toBeUndefined();

    const command = fake.slash({ name: "status", channel: fake.world.random });
    const refusal = await waitFor("the refusal", () =>
      command.originalMessageId ? fake.world.messages.get(command.originalMessageId) : undefined,
    );
    expect(refusal.content).toBe("Switchboard does not answer in this channel.");
    expect(bot.outcomes.map((entry) => entry.message.id)).not.toContain(`interaction-${command.id}`);
  });

  it("shows typing where the question was asked while the answer is worked on, renewed until it is posted", async () => {
    bot = await BotUnderTest.start({ typingIntervalMs: 1000 });
    const { fake } = bot;
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    bot.answer = async (turn) => {
      await released;
      return `echo: ${turn.text}`;
    };
    const typingIn = (channelId: string) =>
      fake.world.typing.filter((entry) => entry.channelId === channelId);
    const question = fake.say({ content: `${fake.mention} think hard` });
    // The thread does not exist until the answer: typing shows in the channel the question is in.
    await waitFor("a renewed typing indicator", () => typingIn(fake.world.general.id).length >= 2, 3000);
    release();
    await bot.waitForPostsIn(question.id, 1);
    await bot.idle();
    const afterAnswer = typingIn(fake.world.general.id).length;
    await new Promise((resolve) => setTimeout(resolve, 1200));
    expect(typingIn(fake.world.general.id)).toHaveLength(afterAnswer);

    const thread = fake.thread(question.id);
    if (!thread) throw new Error("no thread");
    // A follow-up still worked on after the typing delay shows typing in the thread itself.
    bot.answer = async (turn) => {
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      return `echo: ${turn.text}`;
    };
    fake.say({ channel: thread, content: "more?" });
    await bot.waitForPostsIn(thread.id, 2);
    expect(typingIn(thread.id).length).toBeGreaterThanOrEqual(1);
  });

  it("names a conversation's channel and thread from discord.js's channel cache, with no request", async () => {
    bot = await BotUnderTest.start();
    const { fake } = bot;
    const question = fake.say({ content: `${fake.mention} where is my parcel?` });
    await bot.waitForPostsIn(question.id, 1);
    const thread = fake.thread(question.id);
    const { conversation } = await bot.turnFor(question.id);
    const requestsBefore = fake.requests.length;
    expect(await bot.adapter.describePlace(conversation)).toEqual({ room: "#general", thread: thread?.name });
    expect(thread?.name).toBeTruthy();
    expect(fake.requests.length).toBe(requestsBefore);
    const dm = fake.say({ channel: fake.dmWith(), content: "hello in private" });
    await bot.waitForPostsIn(fake.dmWith().id, 1);
    expect(await bot.adapter.describePlace((await bot.turnFor(dm.id)).conversation)).toEqual({
      room: "direct message",
    });
  });
});
