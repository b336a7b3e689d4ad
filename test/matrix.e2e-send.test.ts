import { waitFor } from "@switchboard/core/testing";
import { describe, expect, it } from "vitest";
import type { Answer } from "./support/matrix/bot-fixture.ts";
import { useMatrixBots } from "./support/matrix/bot-lifecycle.ts";
import { relatesOf } from "./support/matrix/events.ts";

const bots = useMatrixBots();
const { start } = bots;

const say = (body: string) =>
  bots.world.homeserver.userSends(bots.world.dm, bots.world.alice, { msgtype: "m.text", body });
const answersTo = (id: string) =>
  bots.world.homeserver
    .eventsFrom(bots.world.bot)
    .filter((event) => relatesOf(event)["m.in_reply_to"]?.event_id === id);
const answerTo = (id: string) => waitFor(`the bot's answer to ${id}`, () => answersTo(id)[0]);

/** About 10,000 characters of markdown: prose, lists and code blocks. */
function longAnswer(): string {
  const sections: string[] = [];
  for (let i = 0; sections.join("\n\n").length < 10_000; i++) {
    sections.push(
      `## Part ${i}\n\nSome prose for part ${i}, with **bold**, \`inline code\` & <angle brackets>.`,
      `- item ${i}a\n- item ${i}b`,
      `\`\`\`ts\n${Array.from({ length: 12 }, (_, line) => `const value${i}_${line} = compute(${i}, ${line}); // "quoted"`).join("\n")}\n\`\`\``,
    );
  }
  return `${sections.join("\n\n").slice(0, 10_000)}\n\nTHE END`;
}

describe("matrix end to end: sending", () => {
  it("retries a rate-limited send after retry_after_ms with the same transaction id, posting once", async () => {
    await start();
    bots.world.homeserver.failNextSend({ kind: "rate-limit", retryAfterMs: 80 });
    const question = say("are you rate limited?");
    await answerTo(question);

    const attempts = bots.world.homeserver.sendAttempts.filter((attempt) => attempt.roomId === bots.world.dm);
    expect(attempts.map((attempt) => attempt.status)).toEqual([429, 200]);
    expect(new Set(attempts.map((attempt) => attempt.txnId)).size).toBe(1);
    expect(answersTo(question)).toHaveLength(1);
  });

  it("retries a send whose response was lost without posting twice", async () => {
    await start();
    bots.world.homeserver.failNextSend({ kind: "lost-response" });
    const question = say("did that arrive?");
    await answerTo(question);
    await waitFor("the retry", () => bots.world.homeserver.sendAttempts.length >= 2);

    const attempts = bots.world.homeserver.sendAttempts.filter((attempt) => attempt.roomId === bots.world.dm);
    expect(attempts.map((attempt) => attempt.status)).toEqual([502, 200]);
    expect(attempts[0]?.txnId).toBe(attempts[1]?.txnId);
    expect(answersTo(question)).toHaveLength(1);
  });

  it("splits a 10,000-character answer into several valid events with code blocks intact", async () => {
    const text = longAnswer();
    await start({ answer: () => text });
    const question = say("tell me everything");
    await waitFor("the last part", () =>
      answersTo(question).some((event) => String(event.content.body).includes("THE END")),
    );
    const parts = answersTo(question);

    expect(parts.length).toBeGreaterThanOrEqual(3);
    for (const part of parts) {
      expect(Buffer.byteLength(JSON.stringify(part))).toBeLessThan(65_536 / 2);
      expect(part.content).toMatchObject({
        msgtype: "m.notice",
        format: "org.matrix.custom.html",
        "m.mentions": {},
      });
      const body = String(part.content.body);
      const fences = body.split("\n").filter((line) => line.startsWith("```")).length;
      expect(fences % 2).toBe(0);
      const html = String(part.content.formatted_body);
      expect(html.split("<pre>").length).toBe(html.split("</pre>").length);
      expect(html).not.toContain("<angle");
    }
    const bodies = parts.map((part) => String(part.content.body)).join("\n");
    for (const word of ["## Part 0", "value0_0", "item 3b", "THE END"]) expect(bodies).toContain(word);
  });

  it("shows typing while a turn runs and clears it after the answer", async () => {
    const typingSeen: Answer = async () => {
      await waitFor("typing on", () => bots.world.homeserver.typing.at(-1)?.typing === true);
      return "done thinking";
    };
    await start({ answer: typingSeen });
    const question = say("think hard");
    await answerTo(question);
    await waitFor("typing off", () => bots.world.homeserver.typing.at(-1)?.typing === false);
    expect(bots.world.homeserver.typing.map((entry) => [entry.roomId, entry.typing])).toEqual([
      [bots.world.dm, true],
      [bots.world.dm, false],
    ]);
  });

  it("marks each message it answers as read", async () => {
    await start();
    const first = say("are you reading this?");
    await answerTo(first);
    const second = say("and this?");
    await answerTo(second);
    const { homeserver, bot, dm } = bots.world;
    // The receipt follows the answer's post: the answer can be seen a moment before it.
    await waitFor("the receipt of the second message", () =>
      homeserver.receipts.some((receipt) => receipt.user === bot && receipt.eventId === second),
    );
    expect(homeserver.receipts.filter((receipt) => receipt.user === bot)).toEqual([
      { user: bot, roomId: dm, type: "m.read", eventId: first },
      { user: bot, roomId: dm, type: "m.read", eventId: second },
    ]);
  });

  it("sends no read receipt when readReceipts is off", async () => {
    await start({ config: { readReceipts: false } });
    const question = say("unread, please");
    await answerTo(question);
    expect(bots.world.homeserver.receipts).toEqual([]);
  });
});
