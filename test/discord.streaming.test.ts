import { chunkMarkdown } from "@switchboard/core/adapter";
import { afterEach, describe, expect, it } from "vitest";
import { longAnswerPieces, streamedAnswer, waitFor } from "../packages/core/src/testing/index.ts";
import { BotUnderTest } from "./support/discord/bot-under-test.ts";

describe("Discord streaming (discord.js against a local Discord)", () => {
  let bot: BotUnderTest;
  afterEach(async () => {
    await bot?.close();
  });

  it("shows the answer while it is written, continues past 2,000 characters, ends exact, never rate limited", async () => {
    bot = await BotUnderTest.start({ streamEditIntervalMs: 1_250 });
    const pieces = longAnswerPieces(70);
    const answer = pieces.join("");
    let lastPieceAt = 0;
    bot.answer = async (turn) => {
      const text = await streamedAnswer({ pieces, paceMs: 15 })(turn);
      lastPieceAt = Date.now();
      return text;
    };
    const dm = bot.fake.dmWith();
    bot.fake.say({ channel: dm, content: "tell me everything" });
    await waitFor("the first streamed text", () => bot.postsIn(dm.id)[0]);
    await bot.idle();

    const posts = bot.postsIn(dm.id);
    // Visible before the model was done, and grown by edits.
    expect(posts[0]?.createdAt).toBeLessThan(lastPieceAt);
    expect(posts[0]?.bodies.length).toBeGreaterThan(2);
    expect(posts.map((post) => post.content)).toEqual(chunkMarkdown(answer, 1_900));
    expect(bot.fake.world.messageRate.breaches).toEqual([]);
  });

  it("posts the answer whole when streaming is off", async () => {
    bot = await BotUnderTest.start({ streaming: "off" });
    bot.answer = streamedAnswer({ pieces: ["one ", "two ", "three"], paceMs: 5 });
    const dm = bot.fake.dmWith();
    bot.fake.say({ channel: dm, content: "count" });
    const [post] = await bot.waitForPostsIn(dm.id, 1);
    await bot.idle();
    expect(post?.content).toBe("one two three");
    expect(post?.bodies).toHaveLength(1);
  });
});
