import { scriptedResponder, waitFor } from "@switchboard/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { type SlackBot, startSlackBot } from "./support/slack/slack-bot.ts";
import { ALICE_DM, BOT_USER_ID, GENERAL, type StoredMessage } from "./support/slack/workspace-state.ts";

const MENTION = `<@${BOT_USER_ID}>`;
const REACTION = "hourglass_flowing_sand";

/** A responder that holds every turn until the test lets it answer. */
function heldResponder() {
  const waiting: (() => void)[] = [];
  const responder = scriptedResponder(
    (turn) => new Promise<string>((resolve) => waiting.push(() => resolve(`done: ${turn.text}`))),
  );
  return {
    responder,
    turnStarted: () => waitFor("a turn to start", () => waiting.length > 0),
    releaseTurn: () => waiting.shift()?.(),
  };
}

const botReacted = (message: StoredMessage) => message.reactions.get(REACTION)?.has(BOT_USER_ID) === true;

describe("Slack working indicator", () => {
  let bot: SlackBot;
  afterEach(async () => {
    await bot?.close();
  });

  it("reacts to the question in a channel thread while working and takes it back after", async () => {
    const held = heldResponder();
    bot = await startSlackBot({ responder: held.responder });
    const root = await bot.slack.say(GENERAL, `${MENTION} think hard`);
    await held.turnStarted();
    await waitFor("the reaction", () => botReacted(root));
    // Slack allows a thread status only in assistant threads; the refusal was the cue for the reaction.
    expect(bot.slack.state.callsTo("assistant.threads.setStatus")).toHaveLength(1);
    expect(bot.slack.state.statuses).toEqual([]);

    held.releaseTurn();
    await waitFor("the answer", () => bot.slack.state.botMessages()[0]);
    await waitFor("the reaction to go", () => !botReacted(root));

    // The refusal is remembered for the channel: the next turn goes straight to the reaction.
    const followUp = await bot.slack.say(GENERAL, "again", { threadTs: root.ts });
    await held.turnStarted();
    await waitFor("the reaction on the follow-up", () => botReacted(followUp));
    expect(bot.slack.state.callsTo("assistant.threads.setStatus")).toHaveLength(1);
    held.releaseTurn();
    await waitFor("the second answer", () => bot.slack.state.botMessages()[1]);
  });

  it("shows a thread status where Slack allows it, and clears it after", async () => {
    const held = heldResponder();
    bot = await startSlackBot({ responder: held.responder });
    const root = await bot.slack.say(ALICE_DM, "top level");
    await held.turnStarted();
    held.releaseTurn();
    await waitFor("the first answer", () => bot.slack.state.botMessages()[0]);

    const inThread = await bot.slack.say(ALICE_DM, "in a thread", { threadTs: root.ts });
    await held.turnStarted();
    await waitFor("the status", () => bot.slack.state.statuses[0]);
    expect(bot.slack.state.statuses).toEqual([
      { channel: ALICE_DM, threadTs: root.ts, status: "is working on it…" },
    ]);
    expect(botReacted(inThread)).toBe(false);

    held.releaseTurn();
    await waitFor("the status to clear", () => bot.slack.state.statuses[1]);
    expect(bot.slack.state.statuses[1]).toEqual({ channel: ALICE_DM, threadTs: root.ts, status: "" });
  });

  it("reacts to a top-level DM, which has no thread to show a status in", async () => {
    const held = heldResponder();
    bot = await startSlackBot({ responder: held.responder });
    const question = await bot.slack.say(ALICE_DM, "quick one");
    await held.turnStarted();
    await waitFor("the reaction", () => botReacted(question));
    held.releaseTurn();
    await waitFor("the reaction to go", () => !botReacted(question));
  });

  it("shows nothing when switched off", async () => {
    bot = await startSlackBot({ config: { workingIndicator: "off" } });
    const root = await bot.slack.say(GENERAL, `${MENTION} no fuss`);
    await waitFor("the answer", () => bot.slack.state.botMessages()[0]);
    await bot.engine.idle();
    expect(bot.slack.state.callsTo("reactions.add")).toEqual([]);
    expect(bot.slack.state.callsTo("assistant.threads.setStatus")).toEqual([]);
    expect(botReacted(root)).toBe(false);
  });
});
