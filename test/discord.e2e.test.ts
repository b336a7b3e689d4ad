import { encodeConversationKey } from "@switchboard/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "../packages/core/src/testing/index.ts";
import { BotUnderTest } from "./support/discord/bot-under-test.ts";

const fenceLines = (text: string) => text.split("\n").filter((line) => /^\s*```/.test(line)).length;

describe("Discord end to end (discord.js against a local Discord)", () => {
  let bot: BotUnderTest;
  beforeAll(async () => {
    bot = await BotUnderTest.start();
  });
  afterAll(async () => {
    await bot?.close();
  });

  it("connects with the four intents it needs and registers its slash commands in the dev server", () => {
    const [identify] = bot.fake.gateway.identifies;
    const GUILDS = 1 << 0;
    const GUILD_MESSAGES = 1 << 9;
    const DIRECT_MESSAGES = 1 << 12;
    const MESSAGE_CONTENT = 1 << 15;
    expect(identify?.intents).toBe(GUILDS | GUILD_MESSAGES | DIRECT_MESSAGES | MESSAGE_CONTENT);
    const registered = bot.fake.desk.commands.get(bot.fake.world.guildId)?.map((command) => command.name);
    expect(registered).toEqual([
      "supervisor",
      "reset",
      "agents",
      "status",
      "stop",
      "help",
      "approve",
      "deny",
      "memory",
      "forget",
      "usage",
    ]);
  });

  it("answers a mention in a thread started on that message, then a follow-up in the thread without a mention", async () => {
    const { fake } = bot;
    const question = fake.say({ content: `${fake.mention} how do I rotate the API keys?` });
    const [answer] = await bot.waitForPostsIn(question.id, 1);
    const thread = fake.thread(question.id);
    expect(thread).toMatchObject({
      parentId: fake.world.general.id,
      starterMessageId: question.id,
      name: "how do I rotate the API keys?",
    });
    expect(answer?.content).toBe("echo: how do I rotate the API keys?");
    const first = await bot.turnFor(question.id);
    expect(first.key).toBe(`discord:${fake.world.guildId}:${fake.world.general.id}:${question.id}`);
    expect(bot.postsIn(fake.world.general.id)).toEqual([]);

    if (!thread) throw new Error("no thread was started");
    await bot.idle();
    const followUp = fake.say({ channel: thread, content: "and the old ones?" });
    const [, second] = await bot.waitForPostsIn(thread.id, 2);
    expect(second?.content).toBe("echo: and the old ones?");
    expect(second?.referenceId).toBe(followUp.id);
    expect((await bot.turnFor(followUp.id)).key).toBe(first.key);
  });

  it("answers a DM in the DM, as a reply", async () => {
    const dm = bot.fake.dmWith();
    const question = bot.fake.say({ channel: dm, content: "a private question" });
    const [answer] = await bot.waitForPostsIn(dm.id, 1);
    expect(answer).toMatchObject({ content: "echo: a private question", referenceId: question.id });
    expect((await bot.turnFor(question.id)).key).toBe(`discord:@dm:${dm.id}`);
  });

  it("splits a 5,000-character answer into three messages, each within 2,000 characters, code fences intact", async () => {
    const code = Array.from({ length: 40 }, (_, i) => `const value${i} = compute(${i}); // keep going`).join(
      "\n",
    );
    const prose = Array.from({ length: 120 }, (_, i) => `sentence${i} of the answer.`).join(" ");
    const long = `${prose}\n\n\`\`\`ts\n${code}\n\`\`\`\nThe end.`;
    expect(long.length).toBeGreaterThan(4500);
    expect(long.length).toBeLessThanOrEqual(5000);
    bot.answer = (turn) => (turn.text.includes("long one") ? long : `echo: ${turn.text}`);
    const dm = bot.fake.dmWith(bot.fake.world.grace);
    bot.fake.say({ channel: dm, author: bot.fake.world.grace, content: "a long one please" });
    const parts = await waitFor("the whole long answer", () => {
      const posts = bot.postsIn(dm.id);
      return posts.at(-1)?.content.endsWith("The end.") ? posts : undefined;
    });
    expect(parts).toHaveLength(3);
    for (const part of parts) {
      expect(part.content.length).toBeLessThanOrEqual(2000);
      expect(fenceLines(part.content) % 2).toBe(0);
    }
    const joined = parts.map((part) => part.content).join("\n");
    for (const word of ["sentence0 ", "sentence119", "value0 ", "value39 "]) expect(joined).toContain(word);
  });

  it("rewrites a markdown table as readable text", async () => {
    bot.answer = () => "Status:\n\n| Service | State |\n|---|---|\n| api | up |\n| worker | down |";
    const dm = bot.fake.dmWith();
    const before = bot.postsIn(dm.id).length;
    bot.fake.say({ channel: dm, content: "how are the services?" });
    const posts = await bot.waitForPostsIn(dm.id, before + 1);
    expect(posts.at(-1)?.content).toBe(
      "Status:\n\n```\nService  State\n-------  -----\napi      up\nworker   down\n```",
    );
  });

  it("never lets a message ping anyone, whatever the answer says", async () => {
    const { fake } = bot;
    bot.answer = () => `@everyone look, <@${fake.world.grace.id}> and <@&${fake.world.botRoleId}> @here`;
    const question = fake.say({ content: `${fake.mention} ping everybody` });
    const [answer] = await bot.waitForPostsIn(question.id, 1);
    expect(answer?.content).toContain("@everyone");
    expect(answer?.pings).toEqual([]);
    await bot.idle();
    const bodies = fake.requests.filter(
      (request) =>
        (request.method === "POST" || request.method === "PATCH") &&
        typeof (request.body as { content?: unknown }).content === "string",
    );
    expect(bodies.length).toBeGreaterThan(3);
    for (const request of bodies) {
      expect((request.body as { allowed_mentions?: unknown }).allowed_mentions, request.path).toEqual(
        expect.objectContaining({ parse: [] }),
      );
    }
    for (const message of fake.botMessages()) expect(message.pings).toEqual([]);
  });

  it("does not answer its own messages, other bots, or edits", async () => {
    const { fake } = bot;
    bot.answer = (turn) => `echo: ${turn.text}`;
    const question = fake.say({ content: `${fake.mention} first version` });
    const [answer] = await bot.waitForPostsIn(question.id, 1);
    if (!answer) throw new Error("no answer");
    // The gateway echoes the bot's own posts back to it, as Discord does.
    expect(await bot.outcomeOf(answer.id)).toEqual({ accepted: false, reason: "own-message" });
    fake.edit(question, `${fake.mention} second version`);
    await waitFor("the edit to reach the engine", () =>
      bot.outcomes.find((entry) => entry.message.id === question.id && entry.message.isEdit),
    );
    const other = fake.say({ content: `${fake.mention} I am a bot too`, author: fake.world.otherBot });
    expect(await bot.outcomeOf(other.id)).toEqual({ accepted: false, reason: "bot-message" });
    const marker = fake.say({ content: `${fake.mention} marker` });
    await bot.waitForPostsIn(marker.id, 1);
    await bot.idle();
    expect(
      bot.outcomes.filter((entry) => entry.message.id === question.id).map((entry) => entry.outcome),
    ).toEqual([
      { accepted: true, key: `discord:${fake.world.guildId}:${fake.world.general.id}:${question.id}` },
      { accepted: false, reason: "edit" },
    ]);
    expect(bot.postsIn(question.id)).toHaveLength(1);
    expect(bot.turns.filter((turn) => turn.message.id === other.id || turn.message.author.isSelf)).toEqual(
      [],
    );
  });

  it("takes a mention of its role (as Discord's autocomplete sometimes offers) as a mention", async () => {
    const { fake } = bot;
    bot.answer = (turn) => `echo: ${turn.text}`;
    const question = fake.say({ content: `<@&${fake.world.botRoleId}> by role` });
    const [answer] = await bot.waitForPostsIn(question.id, 1);
    expect(answer?.content).toBe("echo: by role");
  });

  it("stays quiet in a channel when nobody addresses it", async () => {
    const chatter = bot.fake.say({ content: "just people talking" });
    expect(await bot.outcomeOf(chatter.id)).toEqual({ accepted: false, reason: "not-addressed" });
    expect(bot.fake.thread(chatter.id)).toBeUndefined();
  });

  it("keys every conversation it reports so that it decodes back", () => {
    for (const { message } of bot.outcomes) {
      expect(encodeConversationKey(message.conversation)).toMatch(/^discord:(\d+:\d+:\d+|@dm:\d+)$/);
    }
  });
});
