import { Engine } from "@switchboard/core";
import { scriptedResponder, waitFor } from "@switchboard/core/testing";
import { createSlackAdapter } from "@switchboard/slack";
import { afterEach, describe, expect, it } from "vitest";
import { type SlackBot, startSlackBot } from "./support/slack/slack-bot.ts";
import { ALICE, ALICE_DM, BOB, BOT_USER_ID, GENERAL, TEAM_ID } from "./support/slack/workspace-state.ts";

const MENTION = `<@${BOT_USER_ID}>`;

describe("Slack end to end (HTTP Events API, real Bolt app)", () => {
  let bot: SlackBot;
  const responder = scriptedResponder((turn) => `echo: ${turn.text}`);
  const keys = () => responder.turns.map((turn) => turn.key);
  const botRepliesIn = (channel: string, threadTs: string) =>
    bot.slack.state.thread(channel, threadTs).filter((message) => message.user === BOT_USER_ID);

  afterEach(async () => {
    await bot?.close();
    responder.turns.length = 0;
  });

  it("answers a mention once, in the mention's thread", async () => {
    bot = await startSlackBot({ responder });
    const root = await bot.slack.say(GENERAL, `${MENTION} what is the plan?`);
    await waitFor("the answer", () => botRepliesIn(GENERAL, root.ts)[0]);
    await bot.engine.idle();
    await bot.slack.settle();

    const thread = await bot.reader.conversations.replies({ channel: GENERAL, ts: root.ts });
    expect(thread.messages?.map((message) => [message.user, message.text, message.thread_ts])).toEqual([
      [ALICE, `${MENTION} what is the plan?`, undefined],
      [BOT_USER_ID, "echo: what is the plan?", root.ts],
    ]);
    expect(keys()).toEqual([`slack:${TEAM_ID}:${GENERAL}:${root.ts}`]);
  });

  it("continues the thread's conversation when people write in it without a mention", async () => {
    bot = await startSlackBot({ responder });
    const root = await bot.slack.say(GENERAL, `${MENTION} start here`);
    await waitFor("the first answer", () => botRepliesIn(GENERAL, root.ts)[0]);
    await bot.slack.say(GENERAL, "and one more thing", { threadTs: root.ts });
    await waitFor("the second answer", () => botRepliesIn(GENERAL, root.ts)[1]);
    await bot.slack.say(GENERAL, "bob chimes in", { threadTs: root.ts, user: BOB });
    await waitFor("the third answer", () => botRepliesIn(GENERAL, root.ts)[2]);

    const key = `slack:${TEAM_ID}:${GENERAL}:${root.ts}`;
    expect(keys()).toEqual([key, key, key]);
    expect(botRepliesIn(GENERAL, root.ts).map((message) => message.text)).toEqual([
      "echo: start here",
      "echo: and one more thing",
      "echo: bob chimes in",
    ]);
  });

  it("answers once when Slack retries the event and sends it as both message and app_mention", async () => {
    bot = await startSlackBot({ responder });
    for (const mentionOrder of ["app_mention first", "message first"] as const) {
      const root = await bot.slack.say(GENERAL, `${MENTION} say this once (${mentionOrder})`, {
        mentionOrder,
      });
      // Slack's retries: the same body, the same event_id, X-Slack-Retry-Num 1 and 2. Each is acked.
      expect((await bot.slack.redeliverLast(1)).status).toBe(200);
      expect((await bot.slack.redeliverLast(2)).status).toBe(200);
      await waitFor("the answer", () => botRepliesIn(GENERAL, root.ts)[0]);
    }
    await bot.engine.idle();
    await bot.slack.settle();
    expect(responder.turns.map((turn) => turn.text)).toEqual([
      "say this once (app_mention first)",
      "say this once (message first)",
    ]);
    expect(bot.slack.state.botMessages()).toHaveLength(2);
  });

  it("answers once when a retry reaches a restarted process", async () => {
    bot = await startSlackBot({ responder });
    const root = await bot.slack.say(GENERAL, `${MENTION} before the restart`);
    await waitFor("the answer", () => botRepliesIn(GENERAL, root.ts)[0]);
    await bot.engine.idle();

    // A new process: fresh adapter memory, the same store. Only the durable dedupe on channel:ts remains.
    const adapter = await createSlackAdapter({ ...bot.slack.adapterConfig() });
    const engine = new Engine({ store: bot.store, adapters: [adapter], responder });
    await bot.engine.stop();
    await engine.start();
    bot.slack.connectHttp(() => adapter.port);
    try {
      expect((await bot.slack.redeliverLast(3)).status).toBe(200);
      await bot.slack.say(ALICE_DM, "marker after the retry");
      await waitFor("the marker's answer", () =>
        bot.slack.state.botMessages().find((m) => m.text.includes("marker")),
      );
      await engine.idle();
      expect(botRepliesIn(GENERAL, root.ts)).toHaveLength(1);
      expect(responder.turns.map((turn) => turn.text)).toEqual([
        "before the restart",
        "marker after the retry",
      ]);
    } finally {
      await engine.stop();
    }
  });

  it("answers a direct message at the DM's top level, keeping the DM one conversation", async () => {
    bot = await startSlackBot({ responder });
    await bot.slack.say(ALICE_DM, "a private question");
    await waitFor("the answer", () => bot.slack.state.botMessages()[0]);
    await bot.slack.say(ALICE_DM, "a second private question");
    await waitFor("the second answer", () => bot.slack.state.botMessages()[1]);

    expect(bot.slack.state.botMessages().map((m) => [m.channel, m.thread_ts, m.text])).toEqual([
      [ALICE_DM, undefined, "echo: a private question"],
      [ALICE_DM, undefined, "echo: a second private question"],
    ]);
    expect(keys()).toEqual([`slack:${TEAM_ID}:${ALICE_DM}`, `slack:${TEAM_ID}:${ALICE_DM}`]);
  });

  it("keeps a thread inside a DM its own conversation", async () => {
    bot = await startSlackBot({ responder });
    const root = await bot.slack.say(ALICE_DM, "top level");
    await waitFor("the top-level answer", () => bot.slack.state.botMessages()[0]);
    await bot.slack.say(ALICE_DM, "in a thread now", { threadTs: root.ts });
    await waitFor("the thread answer", () =>
      botRepliesIn(ALICE_DM, root.ts).find((m) => m.thread_ts === root.ts),
    );
    expect(keys()).toEqual([`slack:${TEAM_ID}:${ALICE_DM}`, `slack:${TEAM_ID}:${ALICE_DM}:${root.ts}`]);
  });

  it("answers every top-level DM in its own thread when configured per thread", async () => {
    bot = await startSlackBot({ responder, config: { dmConversations: "per-thread" } });
    const first = await bot.slack.say(ALICE_DM, "first topic");
    const second = await bot.slack.say(ALICE_DM, "second topic");
    await waitFor("both answers", () => bot.slack.state.botMessages().length === 2);
    expect(
      bot.slack.state
        .botMessages()
        .map((m) => m.thread_ts)
        .sort(),
    ).toEqual([first.ts, second.ts].sort());
    expect(new Set(keys()).size).toBe(2);
  });

  it("never answers an edit as a new question", async () => {
    bot = await startSlackBot({ responder });
    const root = await bot.slack.say(GENERAL, `${MENTION} first wording`);
    await waitFor("the answer", () => botRepliesIn(GENERAL, root.ts)[0]);
    await bot.slack.edit(root, `${MENTION} second wording`);
    const marker = await bot.slack.say(GENERAL, "marker", { threadTs: root.ts });
    await waitFor("the marker's answer", () => botRepliesIn(GENERAL, root.ts)[1]);
    expect(marker.thread_ts).toBe(root.ts);
    expect(responder.turns.map((turn) => turn.text)).toEqual(["first wording", "marker"]);
  });

  it("answers an edit that adds the mention, as Slack's app_mention for it asks", async () => {
    bot = await startSlackBot({ responder });
    const root = await bot.slack.say(GENERAL, "how do refunds work?");
    await bot.engine.idle();
    expect(botRepliesIn(GENERAL, root.ts)).toEqual([]);
    await bot.slack.edit(root, `${MENTION} how do refunds work?`);
    await waitFor("the answer to the edited question", () => botRepliesIn(GENERAL, root.ts)[0]);
    expect(responder.turns.map((turn) => turn.text)).toEqual(["how do refunds work?"]);
  });

  it("serves only the allowed channels, and DMs", async () => {
    bot = await startSlackBot({ responder, config: { channels: ["C0SOMEWHEREELSE"] } });
    const ignored = await bot.slack.say(GENERAL, `${MENTION} are you there?`);
    await bot.slack.say(ALICE_DM, "marker");
    await waitFor("the DM answer", () => bot.slack.state.botMessages()[0]);
    await bot.engine.idle();
    expect(botRepliesIn(GENERAL, ignored.ts)).toEqual([]);
    expect(responder.turns.map((turn) => turn.text)).toEqual(["marker"]);
  });
});
