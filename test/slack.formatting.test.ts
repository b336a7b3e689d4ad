import { scriptedResponder, waitFor } from "@switchboard/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { type SlackBot, startSlackBot } from "./support/slack/slack-bot.ts";
import { BOT_USER_ID, GENERAL } from "./support/slack/workspace-state.ts";

const MENTION = `<@${BOT_USER_ID}>`;

/** A long answer with everything a model writes: headings, emphasis, links, lists, tables, code. */
function longMarkdownAnswer(): string {
  const sections = Array.from({ length: 30 }, (_, i) =>
    [
      `## Section ${i}`,
      `This is **important point ${i}** with _a nuance_ and [a link](https://example.com/doc/${i}?a=1&b=2).`,
      `- first item of ${i}\n- second item of ${i}\n  - nested detail ${i}`,
      `| step | owner | days |\n|------|-------|-----:|\n| plan ${i} | ann | ${i + 1} |\n| build ${i} | bob | ${i * 3} |`,
      `\`\`\`ts\nfunction section${i}(x: number) {\n  return x < ${i} && x > 0;\n}\n\`\`\``,
    ].join("\n\n"),
  );
  return `${sections.join("\n\n")}\n\nThe end.`;
}

describe("Slack formatting end to end", () => {
  let bot: SlackBot;
  afterEach(async () => {
    await bot?.close();
  });

  it("posts a long markdown answer as valid mrkdwn chunks in the thread, nothing lost", async () => {
    const markdown = longMarkdownAnswer();
    bot = await startSlackBot({ responder: scriptedResponder(() => markdown) });
    const root = await bot.slack.say(GENERAL, `${MENTION} tell me everything`);
    await waitFor("the last chunk", () =>
      bot.slack.state.botMessages().some((m) => m.text.includes("The end.")),
    );
    await bot.engine.idle();

    const chunks = bot.slack.state.botMessages();
    expect(markdown.length).toBeGreaterThan(8_000);
    expect(chunks.length).toBeGreaterThan(2);
    for (const chunk of chunks) {
      expect(chunk.thread_ts).toBe(root.ts);
      expect(chunk.text.length).toBeLessThanOrEqual(4_000);
      // Every chunk renders on its own: code fences come in pairs, and no markdown-only syntax is left.
      expect((chunk.text.match(/```/g) ?? []).length % 2).toBe(0);
      expect(chunk.text).not.toMatch(/\*\*|^#+ |\]\(/m);
    }
    const all = chunks.map((chunk) => chunk.text).join("\n");
    for (let i = 0; i < 30; i += 1) {
      expect(all).toContain(`*Section ${i}*`);
      expect(all).toContain(`*important point ${i}*`);
      expect(all).toContain(`<https://example.com/doc/${i}?a=1&amp;b=2|a link>`);
      expect(all).toContain(`• first item of ${i}`);
      expect(all).toContain(`    ◦ nested detail ${i}`);
      expect(all).toContain(`return x &lt; ${i} &amp;&amp; x &gt; 0;`);
    }
    // Tables arrive as aligned grids in code blocks.
    expect(all).toMatch(/```\nstep +\| owner \| days\n-+-\+-+-\+-+\nplan 0 +\| ann +\| +1\n/);
  });

  it("never lets a broadcast or user mention in model output reach Slack as a ping", async () => {
    const answer = [
      "Heads up <!channel> and <!here> and <!everyone>!",
      "Ask <@U0BOB> or <!subteam^S0OPS|@ops>, see <#C0GENERAL>.",
      "[click me](!channel) — `<!here>` — **<!everyone>**",
      "- <!channel> in a list",
      "| who |\n|---|\n| <!here> |",
      "Plain @channel and @here too.",
    ].join("\n\n");
    bot = await startSlackBot({ responder: scriptedResponder(() => answer) });
    await bot.slack.say(GENERAL, `${MENTION} announce it`);
    await waitFor("the answer", () => bot.slack.state.botMessages()[0]);
    await bot.engine.idle();

    for (const message of bot.slack.state.botMessages()) {
      expect(message.text).not.toMatch(/<[!@#]/);
      expect(message.text).not.toMatch(/@(channel|here|everyone)\b/);
    }
    // What readers see is the text, escaped; the words are still there.
    const text = bot.slack.state
      .botMessages()
      .map((m) => m.text)
      .join("\n");
    expect(text).toContain("&lt;!channel&gt;");
    expect(text).toContain("&lt;@U0BOB&gt;");
    for (const call of bot.slack.state.callsTo("chat.postMessage")) expect(call.link_names).toBe("false");
  });

  it("edits a posted answer in place, converted like any post", async () => {
    bot = await startSlackBot();
    const root = await bot.slack.say(GENERAL, `${MENTION} draft`);
    const answer = await waitFor("the answer", () => bot.slack.state.botMessages()[0]);
    await bot.engine.idle();
    const conversation = { platform: "slack", path: ["T0SWITCH", GENERAL, root.ts] };
    await bot.adapter.edit({ id: `${GENERAL}:${answer.ts}`, conversation }, "**final** answer <!here>");
    expect(bot.slack.state.botMessages().map((m) => m.text)).toEqual(["*final* answer &lt;!here&gt;"]);
    expect(answer.edited).toBeDefined();
  });
});
