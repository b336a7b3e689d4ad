import { scriptedResponder, waitFor } from "@switchboard/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { type SlackBot, startSlackBot } from "./support/slack/slack-bot.ts";
import { ALICE_DM } from "./support/slack/workspace-state.ts";

describe("Slack: text with lone surrogates", () => {
  let bot: SlackBot;
  afterEach(async () => {
    await bot?.close();
  });

  it("posts a lone surrogate as the replacement character, never as a different character", async () => {
    bot = await startSlackBot({ responder: scriptedResponder(() => "\uD800 high and low \uDC00 end") });
    await bot.slack.say(ALICE_DM, "say something odd");
    const answer = await waitFor("the answer", () => bot.slack.state.botMessages()[0]);
    expect(answer.text).toContain("\uFFFD high and low \uFFFD end");
    expect(answer.text).not.toMatch(/[\uD800-\uDFFF]/);
  });
});
