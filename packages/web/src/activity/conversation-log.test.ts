import type { InboundMessage, OutboundMessage } from "@switchboard/core";
import { describe, expect, it } from "vitest";
import { testStoreBackends } from "../../../core/src/store/test-backends.ts";
import { ConversationLog } from "./conversation-log.ts";

const thread = { platform: "slack", path: ["T1", "C1", "1700.1"] };
const channel = { platform: "slack", path: ["T1", "C1"] };
const threadKey = "slack:T1:C1:1700.1";

let sequence = 0;
function userMessage(text: string, overrides: Partial<InboundMessage> = {}): InboundMessage {
  sequence += 1;
  return {
    id: `m${sequence}`,
    conversation: thread,
    author: { id: "U1", displayName: "Ana", isBot: false, isSelf: false },
    text,
    isDirect: false,
    mentionsBot: true,
    isEdit: false,
    sentAt: 1_000 + sequence,
    ...overrides,
  };
}

function botPost(text: string, replyTo: string, conversation = thread): OutboundMessage {
  return { conversation, text, replyTo, agent: "billing" };
}

describe.each(testStoreBackends("console-log"))("ConversationLog on %s", (_name, open) => {
  it("names a bot message after the agent's display, as the platform showed it", async () => {
    const { store, cleanup } = await open();
    try {
      const log = new ConversationLog(store);
      const question = userMessage("@bot refund?");
      await log.noteInbound(question);
      await log.notePosted(
        { ...botPost("Refunds take five days.", question.id), identity: { name: "Billing" } },
        { id: "b9", conversation: thread },
      );
      const [, answer] = await log.transcript(threadKey);
      expect(answer).toMatchObject({ role: "bot", author: "Billing", agent: "billing" });
    } finally {
      await store.close();
      await cleanup();
    }
  });

  it("keeps the transcript in order, as the users saw it, and lists the conversation", async () => {
    const { store, cleanup } = await open();
    const changed: string[] = [];
    try {
      const log = new ConversationLog(store, { onChange: (key) => changed.push(key) });
      const question = userMessage("@bot I was charged twice");
      // The answer is noted before the question's write finished: the chain keeps them in order.
      const first = log.noteInbound(question);
      const second = log.notePosted(botPost("Let me check.", question.id), {
        id: "b1",
        conversation: thread,
      });
      await Promise.all([first, second]);
      const followUp = userMessage("thanks", { mentionsBot: false });
      await log.noteInbound(followUp);
      expect((await log.transcript(threadKey)).map((m) => [m.role, m.author, m.text])).toEqual([
        ["user", "Ana", "@bot I was charged twice"],
        ["bot", "billing", "Let me check."],
        ["user", "Ana", "thanks"],
      ]);
      const [summary] = await log.list();
      expect(summary).toMatchObject({
        key: threadKey,
        messageCount: 3,
        participants: ["Ana"],
        lastText: "thanks",
      });
      expect(changed).toEqual([threadKey, threadKey, threadKey]);
    } finally {
      await store.close();
      await cleanup();
    }
  });

  it("leaves out other people's chatter, bots and edits; adds a message once a bot reply shows it was addressed", async () => {
    const { store, cleanup } = await open();
    try {
      const log = new ConversationLog(store);
      const chatter = userMessage("people talking", { conversation: channel, mentionsBot: false });
      await log.noteInbound(chatter);
      await log.noteInbound(userMessage("a bot", { author: { id: "B", isBot: true, isSelf: false } }));
      await log.noteInbound(userMessage("edited", { isEdit: true }));
      expect(await log.list()).toEqual([]);
      // A reply outside any thread to a bot message: the engine answers in the bot message's thread.
      const reply = userMessage("about your answer", {
        conversation: channel,
        mentionsBot: false,
        replyTo: "b0",
      });
      await log.noteInbound(reply);
      await log.notePosted(botPost("Here is more.", reply.id), { id: "b2", conversation: thread });
      expect((await log.transcript(threadKey)).map((m) => m.text)).toEqual([
        "about your answer",
        "Here is more.",
      ]);
      expect((await log.list()).map((s) => s.key)).toEqual([threadKey]);
    } finally {
      await store.close();
      await cleanup();
    }
  });

  it("shows a redelivered message once, and returns only the newest messages when asked for fewer", async () => {
    const { store, cleanup } = await open();
    try {
      const log = new ConversationLog(store);
      const message = userMessage("once please");
      await log.noteInbound(message);
      await log.noteInbound(message);
      for (let i = 0; i < 5; i++)
        await log.notePosted(botPost(`part ${i}`, message.id), { id: `p${i}`, conversation: thread });
      expect((await log.summary(threadKey))?.messageCount).toBe(6);
      expect((await log.transcript(threadKey, 2)).map((m) => m.text)).toEqual(["part 3", "part 4"]);
    } finally {
      await store.close();
      await cleanup();
    }
  });
});
