import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BotUnderTest } from "./support/discord/bot-under-test.ts";

describe("Discord gateway events that are not what Discord sends", () => {
  let bot: BotUnderTest;
  beforeAll(async () => {
    bot = await BotUnderTest.start();
  });
  afterAll(async () => {
    await bot?.close();
  });

  it("skips malformed dispatches and goes on answering", async () => {
    const { fake } = bot;
    const channel = fake.world.general.id;
    const hostile: [string, unknown][] = [
      ["MESSAGE_CREATE", null],
      ["MESSAGE_CREATE", { id: "1", channel_id: channel, author: null, content: "x" }],
      ["MESSAGE_CREATE", { id: "2", channel_id: channel, author: { id: null }, content: null }],
      ["MESSAGE_UPDATE", { id: "3", channel_id: channel }],
      ["INTERACTION_CREATE", { id: "4", type: 2, data: null }],
      ["THREAD_CREATE", { id: "5" }],
    ];
    for (const [event, data] of hostile) fake.gateway.dispatch(event, data);
    const dm = fake.dmWith();
    fake.say({ channel: dm, content: "still there?" });
    const [answer] = await bot.waitForPostsIn(dm.id, 1);
    expect(answer?.content).toBe("echo: still there?");
  });
});
