import { openStore, type Store } from "@switchboard/core";
import { waitFor } from "@switchboard/core/testing";
import { createDiscordAdapter, type DiscordAdapter } from "@switchboard/discord";
import { afterEach, describe, expect, it } from "vitest";
import { APPROVED_ANSWER, startApprovalTeam } from "../support/approval-scenario.ts";
import { BotUnderTest } from "../support/discord/bot-under-test.ts";
import { FakeDiscord } from "../support/discord/fake-discord.ts";
import { componentsOf } from "../support/discord/payloads.ts";
import type { MessageRecord } from "../support/discord/records.ts";
import { SUPPORT_IDENTITIES, streamedAs } from "../support/team-identities.ts";

const TECH_AVATAR = "https://example.com/tech.png";

describe("agent identities on Discord (discord.js against a local Discord)", () => {
  let bot: BotUnderTest;
  let store: Store | undefined;
  afterEach(async () => {
    await bot?.close();
    store = undefined;
  });

  async function start(config: Parameters<typeof BotUnderTest.start>[0] = {}) {
    store = await openStore("memory://");
    bot = await BotUnderTest.start(config, undefined, { identities: SUPPORT_IDENTITIES, store });
    return bot;
  }

  /** A thread the bot opened on a mention in #general, and the answers in it. */
  async function askInGeneral(content: string, answers: number) {
    const root = bot.fake.say({ content: `${bot.fake.mention} ${content}` });
    const posts = await waitFor(`${answers} agent message(s)`, () => {
      const found = bot.fake.world.webhookMessages().filter((message) => message.channelId === root.id);
      return found.length >= answers ? found : undefined;
    });
    await bot.idle();
    return { root, posts };
  }

  it("answers through one webhook of the channel, in the thread, under the agent's name and avatar", async () => {
    await start({ streaming: "off" });
    bot.answer = () => ({ text: "Restart the router.", agent: "tech_support" });
    const first = await askInGeneral("my wifi is down", 1);
    bot.answer = () => ({ text: "Your invoice is paid.", agent: "billing" });
    const second = await askInGeneral("is my invoice paid?", 1);

    const { fake } = bot;
    const general = fake.world.general.id;
    expect(fake.requestsTo("POST", new RegExp(`^/api/v10/channels/${general}/webhooks$`))).toHaveLength(1);
    const [webhook] = fake.world.channelWebhooks(general);
    expect(webhook?.applicationId).toBe(fake.world.applicationId);
    const executions = fake.requestsTo("POST", new RegExp(`^/api/v10/webhooks/${webhook?.id}/`));
    expect(executions.map((request) => request.body)).toMatchObject([
      {
        content: "Restart the router.",
        username: "Tech support",
        avatar_url: TECH_AVATAR,
        allowed_mentions: { parse: [] },
      },
      { content: "Your invoice is paid.", username: "Billing" },
    ]);
    expect(executions.map((request) => request.query.get("thread_id"))).toEqual([
      first.root.id,
      second.root.id,
    ]);
    // An emoji is no image: Discord shows the webhook's own avatar.
    expect(executions[1]?.body).not.toHaveProperty("avatar_url");
    expect(first.posts[0]?.webhook).toEqual({
      id: webhook?.id,
      username: "Tech support",
      avatarUrl: TECH_AVATAR,
    });
    // Nothing was posted as the bot, and the bot never answered its agents' own messages.
    expect(fake.botMessages().filter((message) => message.content !== "")).toEqual([]);
    expect(bot.turns).toHaveLength(2);
  });

  it("streams an answer through the webhook's edit endpoint and ends exact", async () => {
    await start({ streamEditIntervalMs: 250 });
    const pieces = ["The router ", "needs a ", "restart: ", "hold the button ", "for ten ", "seconds."];
    bot.answer = streamedAs("tech_support", pieces);
    const { root, posts } = await askInGeneral("my wifi is down", 1);

    const { fake } = bot;
    const [webhook] = fake.world.channelWebhooks(fake.world.general.id);
    const edits = fake.requestsTo(
      "PATCH",
      new RegExp(`^/api/v10/webhooks/${webhook?.id}/[^/]+/messages/${posts[0]?.id}$`),
    );
    expect(edits.length).toBeGreaterThan(0);
    for (const edit of edits) expect(edit.query.get("thread_id")).toBe(root.id);
    expect(fake.requestsTo("PATCH", /^\/api\/v10\/channels\//)).toEqual([]);
    expect(fake.world.webhookMessages()).toHaveLength(1);
    expect(posts[0]).toMatchObject({ content: pieces.join(""), webhook: { username: "Tech support" } });
    expect(fake.world.messageRate.breaches).toEqual([]);
  });

  it("a handoff in the middle of a streamed answer names the new writer in the text (a webhook message keeps its name)", async () => {
    await start({ streamEditIntervalMs: 250 });
    bot.answer = async (turn) => {
      const pace = () => new Promise((resolve) => setTimeout(resolve, 120));
      for (const delta of ["Let me ", "hand you ", "to billing ", "for that…"]) {
        turn.onEvent?.({ kind: "text", agent: "supervisor", delta });
        await pace();
      }
      // The supervisor's text belonged to a step that handed off: it is taken back.
      turn.onEvent?.({ kind: "discard", agent: "supervisor" });
      for (const delta of ["Your invoice ", "is paid."]) {
        turn.onEvent?.({ kind: "text", agent: "billing", delta });
        await pace();
      }
      return { text: "Your invoice is paid.", agent: "billing" };
    };
    const { posts } = await askInGeneral("is my invoice paid?", 1);

    expect(posts).toHaveLength(1);
    expect(posts[0]?.webhook?.username).toBe("Front desk");
    expect(posts[0]?.content).toBe("**Billing:** Your invoice is paid.");
  });

  it("a reply to an agent's message (no mention) reaches its conversation and is answered there", async () => {
    await start({ streaming: "off", autoThread: false });
    bot.answer = (turn) => ({ text: `Billing here: ${turn.text}`, agent: "billing" });
    const question = bot.fake.say({ content: `${bot.fake.mention} is my invoice paid?` });
    const general = bot.fake.world.general.id;
    const first = await waitFor("the agent's answer", () => bot.fake.world.webhookMessages()[0]);
    expect(first.channelId).toBe(general);
    // The answer is indexed once its post returned; no person replies sooner than that.
    await bot.idle();
    const reply = bot.fake.say({ content: "and the one from May?", replyTo: first.id });
    await waitFor("the answer to the reply", () => bot.fake.world.webhookMessages()[1]);
    await bot.idle();

    expect(await bot.outcomeOf(reply.id)).toMatchObject({ accepted: true });
    const [firstTurn, secondTurn] = bot.turns;
    expect(secondTurn?.key).toBe(firstTurn?.key);
    expect(firstTurn?.message.id).toBe(question.id);
  });

  it("names the agent in bold in front where the bot may not manage webhooks", async () => {
    await start({ streaming: "off" });
    bot.fake.world.manageWebhooks = false;
    bot.answer = () => ({ text: "Your invoice is paid.", agent: "billing" });
    const root = bot.fake.say({ content: `${bot.fake.mention} is my invoice paid?` });
    const [post] = await bot.waitForPostsIn(root.id, 1);
    await bot.idle();

    expect(post?.content).toBe("**Billing:** Your invoice is paid.");
    expect(bot.fake.world.webhookMessages()).toEqual([]);
  });

  it("posts once when the answer to the webhook post is lost (a 500 after Discord made the message)", async () => {
    await start({ streaming: "off" });
    bot.answer = () => ({ text: "Your invoice is paid.", agent: "billing" });
    await askInGeneral("first question", 1);
    bot.fake.world.failNextWebhookAnswer = true;
    const { posts } = await askInGeneral("is my invoice paid?", 1);

    const [webhook] = bot.fake.world.channelWebhooks(bot.fake.world.general.id);
    // The post was tried again, found, and not made a second time.
    expect(bot.fake.requestsTo("POST", new RegExp(`^/api/v10/webhooks/${webhook?.id}/`))).toHaveLength(2);
    expect(posts.map((post) => post.content)).toEqual(["Your invoice is paid."]);
  });

  it("a re-run after a crash finds the webhook post the dead process made, with the webhook kept in the store", async () => {
    await start({ streaming: "off" });
    bot.answer = () => ({ text: "Your invoice is paid.", agent: "billing" });
    const { root, posts } = await askInGeneral("is my invoice paid?", 1);
    const conversation = {
      platform: "discord",
      path: [bot.fake.world.guildId, bot.fake.world.general.id, root.id],
    };
    const identity = SUPPORT_IDENTITIES.agents.billing;
    // The same post made again by another process on the same store, as a re-run after a crash does.
    const worker = await createDiscordAdapter(
      { token: bot.fake.token, apiUrl: bot.fake.apiUrl },
      { store: store as Store },
    );
    await worker.startSendOnly();
    const key = "work-1:0:0";
    const again = async () =>
      worker.post({
        conversation,
        text: "Refunds take five days.",
        idempotencyKey: key,
        ...(identity ? { identity } : {}),
      });
    const first = await again();
    const repeated = await again();
    await worker.stop();

    expect(repeated.id).toBe(first.id);
    const messages = bot.fake.world.webhookMessages().filter((message) => message.channelId === root.id);
    expect(messages.map((message) => message.content)).toEqual([
      posts[0]?.content,
      "Refunds take five days.",
    ]);
    // One webhook for the channel, whichever process posts.
    expect(bot.fake.world.channelWebhooks(bot.fake.world.general.id)).toHaveLength(1);
  });
});

describe("an approval prompt from an agent with a display, on Discord", () => {
  let fake: FakeDiscord;
  let team: Awaited<ReturnType<typeof startApprovalTeam<DiscordAdapter>>> | undefined;
  afterEach(async () => {
    await team?.stop();
    await fake?.close();
  });

  it("is posted through the webhook with its buttons; a press decides it and the answer follows under the same name", async () => {
    fake = await FakeDiscord.start();
    const adapter = await createDiscordAdapter({ token: fake.token, apiUrl: fake.apiUrl, streaming: "off" });
    team = await startApprovalTeam(adapter, { display: { name: "Front desk", icon: TECH_AVATAR } });
    const root = fake.say({ content: `${fake.mention} refund my 40 EUR` });
    const prompt = await waitFor("the approval prompt with buttons", () =>
      fake.world.webhookMessages().find((message) => buttonIds(message).length > 0),
    );
    expect(prompt.webhook).toMatchObject({ username: "Front desk", avatarUrl: TECH_AVATAR });
    expect(prompt.channelId).toBe(root.id);

    const [approve = ""] = buttonIds(prompt);
    const press = fake.press(prompt, approve);
    const answer = await waitFor("the answer", () =>
      fake.world.webhookMessages().find((message) => message.content === APPROVED_ANSWER),
    );
    await team.engine.idle();

    expect(press.callback?.type).toBe(7);
    expect(team.refunds.amounts).toEqual([40]);
    expect(buttonIds(prompt)).toEqual([]);
    expect(prompt.content).toMatch(/✅ Approved by <@\d+>$/);
    expect(answer.webhook?.username).toBe("Front desk");
    expect(fake.botMessages().filter((message) => message.content !== "")).toEqual([]);
  });
});

const buttonIds = (message: MessageRecord) =>
  (componentsOf(message) as { components?: { custom_id?: string }[] }[])
    .flatMap((row) => row.components ?? [])
    .map((button) => button.custom_id ?? "");
