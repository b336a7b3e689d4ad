import type { Command } from "@switchboard/core";
import { scriptedResponder, waitFor } from "@switchboard/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { type SlackBot, startSlackBot } from "./support/slack/slack-bot.ts";
import {
  ALICE,
  ALICE_DM,
  BOT_USER_ID,
  ELSEWHERE,
  GENERAL,
  TEAM_ID,
} from "./support/slack/workspace-state.ts";

const MENTION = `<@${BOT_USER_ID}>`;

describe("Slack commands", () => {
  let bot: SlackBot;
  const responder = scriptedResponder((turn) => `echo: ${turn.text}`);
  const ran: { name: string; key: string; args: string }[] = [];
  const command = (name: string, run: Command["run"]): Command => ({
    name,
    summary: `the ${name} command`,
    async run(context) {
      ran.push({ name, key: context.key, args: context.args });
      return run(context);
    },
  });
  const commands = [
    command("reset", async () => ({ reply: "Fresh start." })),
    command("status", async (context) => ({ reply: `Status of ${context.key}.` })),
    command("supervisor", async (context) => ({
      reply: "Back to the supervisor.",
      thenAnswer: context.args,
    })),
  ];
  const start = (options: Parameters<typeof startSlackBot>[0] = {}) =>
    startSlackBot({ responder, commands, ...options });

  afterEach(async () => {
    await bot?.close();
    responder.turns.length = 0;
    ran.length = 0;
  });

  it("turns `@bot reset` in a thread into /reset for that thread, before any model call", async () => {
    bot = await start();
    const root = await bot.slack.say(GENERAL, `${MENTION} hello`);
    await waitFor("the first answer", () => bot.slack.state.botMessages()[0]);
    await bot.slack.say(GENERAL, `${MENTION} reset`, { threadTs: root.ts });
    await waitFor("the command's reply", () => bot.slack.state.botMessages()[1]);

    expect(ran).toEqual([{ name: "reset", key: `slack:${TEAM_ID}:${GENERAL}:${root.ts}`, args: "" }]);
    expect(bot.slack.state.botMessages().map((m) => [m.thread_ts, m.text])).toEqual([
      [root.ts, "echo: hello"],
      [root.ts, "Fresh start."],
    ]);
    expect(responder.turns.map((turn) => turn.text)).toEqual(["hello"]);
  });

  it("passes a command's arguments on: `@bot supervisor show my invoices`", async () => {
    bot = await start();
    await bot.slack.say(GENERAL, `${MENTION} supervisor show my invoices`);
    await waitFor("the answer after the command", () => bot.slack.state.botMessages()[1]);
    expect(ran.map((entry) => [entry.name, entry.args])).toEqual([["supervisor", "show my invoices"]]);
    expect(bot.slack.state.botMessages().map((m) => m.text)).toEqual([
      "Back to the supervisor.",
      "echo: show my invoices",
    ]);
  });

  it("answers `/switchboard status` in a channel privately, to the user who asked", async () => {
    bot = await start();
    expect((await bot.slack.slashCommand(GENERAL, "status")).status).toBe(200);
    await waitFor("the ephemeral answer", () => bot.slack.state.ephemeral[0]);

    expect(bot.slack.state.ephemeral).toEqual([
      expect.objectContaining({
        channel: GENERAL,
        user: ALICE,
        via: "chat.postEphemeral",
        text: `Status of slack:${TEAM_ID}:${GENERAL}:@${ALICE}.`,
      }),
    ]);
    expect(bot.slack.state.botMessages()).toEqual([]);
    expect(ran.map((entry) => entry.key)).toEqual([`slack:${TEAM_ID}:${GENERAL}:@${ALICE}`]);
  });

  it("answers a bare `/switchboard` with the command list", async () => {
    bot = await start();
    await bot.slack.slashCommand(GENERAL, "");
    const answer = await waitFor("the help text", () => bot.slack.state.ephemeral[0]);
    expect(answer.text).toMatch(/stop/);
    // Slack takes a typed `/reset` as a slash command of its own: the list names `!reset`.
    expect(answer.text).toContain("!reset");
    expect(answer.text).not.toMatch(/`\/reset/);
  });

  it("answers the slash command through its response_url where the bot is not a member", async () => {
    bot = await start();
    await bot.slack.slashCommand(ELSEWHERE, "reset");
    const answer = await waitFor("the answer", () => bot.slack.state.ephemeral[0]);
    expect(answer).toEqual(
      expect.objectContaining({ channel: ELSEWHERE, user: ALICE, via: "response_url", text: "Fresh start." }),
    );
  });

  it("runs `/switchboard reset` in a DM on the DM's conversation, answered in the DM", async () => {
    bot = await start();
    await bot.slack.slashCommand(ALICE_DM, "reset");
    await waitFor("the answer", () => bot.slack.state.botMessages()[0]);
    expect(ran.map((entry) => entry.key)).toEqual([`slack:${TEAM_ID}:${ALICE_DM}`]);
    expect(bot.slack.state.botMessages().map((m) => [m.channel, m.thread_ts, m.text])).toEqual([
      [ALICE_DM, undefined, "Fresh start."],
    ]);
  });

  it("takes the slash command over Socket Mode too", async () => {
    bot = await start({ transport: "socket" });
    await bot.slack.slashCommand(GENERAL, "status");
    const answer = await waitFor("the ephemeral answer", () => bot.slack.state.ephemeral[0]);
    expect(answer.text).toBe(`Status of slack:${TEAM_ID}:${GENERAL}:@${ALICE}.`);
  });

  it("tells the user the slash command is not enabled in a channel outside the allowlist", async () => {
    bot = await start({ config: { channels: [ELSEWHERE] } });
    const refused = await bot.slack.slashCommand(GENERAL, "status");
    expect(refused.status).toBe(200);
    expect(refused.body).toEqual({ response_type: "ephemeral", text: "Switchboard is not enabled here." });
    await bot.engine.idle();
    expect(ran).toEqual([]);
  });
});
