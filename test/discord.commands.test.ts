import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "../packages/core/src/testing/index.ts";
import { BotUnderTest } from "./support/discord/bot-under-test.ts";
import type { InteractionRecord } from "./support/discord/records.ts";

const EPHEMERAL = 1 << 6;
const DEFERRED_CHANNEL_MESSAGE = 5;

describe("Discord slash commands end to end", () => {
  let bot: BotUnderTest;
  beforeAll(async () => {
    bot = await BotUnderTest.start({ globalCommands: true });
  });
  afterAll(async () => {
    await bot?.close();
  });

  /** The interaction's messages once the original has text: the edited original, then follow-ups. */
  const answerOf = (interaction: InteractionRecord, parts = 1) =>
    waitFor(`${parts} answer part(s) to /${interaction.name}`, () => {
      const ids = [interaction.originalMessageId, ...interaction.followUpIds];
      const messages = ids.map((id) => (id ? bot.fake.world.messages.get(id) : undefined));
      const written = messages.filter((message) => message !== undefined && message.content !== "");
      return written.length >= parts ? written : undefined;
    });

  it("acknowledges /help at once, privately, then answers it through the interaction", async () => {
    const interaction = bot.fake.slash({ name: "help" });
    const [answer] = await answerOf(interaction);
    const callback = interaction.callback;
    expect(callback?.type).toBe(DEFERRED_CHANNEL_MESSAGE);
    expect((callback?.flags ?? 0) & EPHEMERAL).toBe(EPHEMERAL);
    expect((callback?.at ?? Number.POSITIVE_INFINITY) - interaction.createdAt).toBeLessThan(3000);
    expect(answer?.content).toMatch(/stop/);
    expect((answer?.flags ?? 0) & EPHEMERAL).toBe(EPHEMERAL);
    expect(bot.turns.some((turn) => turn.message.id === `interaction-${interaction.id}`)).toBe(false);
    // Nothing went into the channel itself, and nobody saw the bot "typing" there for a private answer.
    expect(bot.fake.requestsTo("POST", /^\/api\/v10\/channels\/\d+\/(messages|typing)$/)).toEqual([]);
  });

  it("runs /supervisor in a thread as `/supervisor <message>` in that thread's conversation", async () => {
    const { fake } = bot;
    const question = fake.say({ content: `${fake.mention} start here` });
    await bot.waitForPostsIn(question.id, 1);
    await bot.idle();
    const thread = fake.thread(question.id);
    if (!thread) throw new Error("no thread was started");
    const interaction = fake.slash({
      name: "supervisor",
      channel: thread,
      options: { message: "show me my invoices" },
    });
    const [answer] = await answerOf(interaction);
    expect(interaction.callback?.flags ?? 0).toBe(0);
    expect(answer?.content).toBe("echo: /supervisor show me my invoices");
    const turn = await bot.turnFor(`interaction-${interaction.id}`);
    expect(turn.key).toBe((await bot.turnFor(question.id)).key);
    // The answer went through the interaction, not as a second channel message in the thread.
    expect(bot.postsIn(thread.id).map((post) => post.id)).toEqual([
      bot.postsIn(thread.id)[0]?.id,
      interaction.originalMessageId,
    ]);
  });

  it("answers /stop through the interaction without running a turn", async () => {
    const interaction = bot.fake.slash({ name: "stop", channel: bot.fake.dmWith() });
    const [answer] = await answerOf(interaction);
    expect(answer?.content).toBe("Nothing is running in this conversation.");
    expect(bot.turns.some((turn) => turn.message.id === `interaction-${interaction.id}`)).toBe(false);
  });

  it("sends a long command answer as the edited reply plus follow-ups, each within the limit", async () => {
    const long = Array.from({ length: 600 }, (_, i) => `part${i}`).join(" ");
    expect(long.length).toBeGreaterThan(2 * 1900);
    bot.answer = (turn) => (turn.text.includes("everything") ? long : `echo: ${turn.text}`);
    const interaction = bot.fake.slash({
      name: "supervisor",
      channel: bot.fake.dmWith(),
      options: { message: "everything" },
    });
    const parts = await answerOf(interaction, 3);
    expect(interaction.followUpIds).toHaveLength(2);
    for (const part of parts) expect(part?.content.length).toBeLessThanOrEqual(2000);
    expect(parts.map((part) => part?.content).join(" ")).toContain("part599");
    bot.answer = (turn) => `echo: ${turn.text}`;
  });

  it("starts a conversation at a command used in a channel; replying to its answer continues it in a thread", async () => {
    const { fake } = bot;
    const interaction = fake.slash({ name: "supervisor", options: { message: "plan the launch" } });
    const [answer] = await answerOf(interaction);
    const root = interaction.originalMessageId;
    if (!answer || !root) throw new Error("no answer");
    const key = `discord:${fake.world.guildId}:${fake.world.general.id}:${root}`;
    expect((await bot.turnFor(`interaction-${interaction.id}`)).key).toBe(key);
    await bot.idle();

    const reply = fake.say({ content: "and the budget?", replyTo: root });
    const [threaded] = await bot.waitForPostsIn(root, 1);
    expect(threaded?.content).toBe("echo: and the budget?");
    expect(fake.thread(root)?.starterMessageId).toBe(root);
    expect((await bot.turnFor(reply.id)).key).toBe(key);
  });
});
