import { setTimeout as sleep } from "node:timers/promises";
import { scriptedResponder, waitFor } from "@switchboard/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { type SlackBot, startSlackBot } from "./support/slack/slack-bot.ts";
import { ALICE_DM, BOT_USER_ID, GENERAL } from "./support/slack/workspace-state.ts";

const MENTION = `<@${BOT_USER_ID}>`;
const INDICATOR_METHODS = ["assistant.threads.setStatus", "reactions.add", "reactions.remove"];

describe("Slack Web API calls per answer", () => {
  let bot: SlackBot;
  afterEach(async () => {
    await bot?.close();
  });

  const callsSince = (from: number) => bot.slack.state.calls.slice(from).map((call) => call.method);

  it.each([
    ["a channel mention", GENERAL, `${MENTION} what time is it?`],
    ["a direct message", ALICE_DM, "what time is it?"],
  ])(
    "answers %s that is ready at once with one chat.postMessage and no indicator",
    async (_label, channel, text) => {
      bot = await startSlackBot();
      const from = bot.slack.state.calls.length;
      await bot.slack.say(channel, text);
      await waitFor("the answer", () => bot.slack.state.botMessages()[0]);
      await bot.engine.idle();
      // Past the typing delay: a late indicator would show up now.
      await sleep(1_000);
      expect(callsSince(from)).toEqual(["chat.postMessage"]);
    },
  );

  it("shows the indicator only for a turn still running after the delay, and takes it back", async () => {
    let from = 0;
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let atStart: string[] | undefined;
    bot = await startSlackBot({
      responder: scriptedResponder(async (turn) => {
        // The turn has just begun: the delay has not passed, so nothing shows yet.
        atStart = callsSince(from).filter((method) => INDICATOR_METHODS.includes(method));
        // It runs until the indicator is up (the delay passed while it worked).
        await held;
        return `done: ${turn.text}`;
      }),
    });
    from = bot.slack.state.calls.length;
    await bot.slack.say(GENERAL, `${MENTION} think hard`);
    await waitFor("the indicator", () => callsSince(from).includes("reactions.add"), 10_000);
    expect(atStart).toEqual([]);
    release();
    await waitFor("the answer", () => bot.slack.state.botMessages()[0]);
    await bot.engine.idle();
    const indicator = callsSince(from).filter((method) => INDICATOR_METHODS.includes(method));
    // Slack refuses a status outside assistant threads; the adapter then reacts, and removes it after.
    expect(indicator).toEqual(["assistant.threads.setStatus", "reactions.add", "reactions.remove"]);
    expect(callsSince(from).filter((method) => method === "chat.postMessage")).toHaveLength(1);
  });
});
