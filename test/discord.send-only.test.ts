import type { ConversationRef } from "@switchboard/core";
import type { ApprovalPress } from "@switchboard/core/adapter";
import { afterEach, describe, expect, it } from "vitest";
import { waitFor } from "../packages/core/src/testing/index.ts";
import { createDiscordAdapter, type DiscordAdapter } from "../packages/discord/src/index.ts";
import { FakeDiscord } from "./support/discord/fake-discord.ts";

describe("Discord send-only (a scale-out worker; discord.js over REST against the local Discord)", () => {
  let fake: FakeDiscord;
  let worker: DiscordAdapter | undefined;
  afterEach(async () => {
    await worker?.stop();
    worker = undefined;
    await fake?.close();
  });

  async function startWorker(config: { typingIntervalMs?: number; token?: string } = {}) {
    fake = await FakeDiscord.start();
    worker = await createDiscordAdapter({ token: fake.token, apiUrl: fake.apiUrl, ...config });
    return worker;
  }

  const threadOf = (rootId: string): ConversationRef => ({
    platform: "discord",
    path: [fake.world.guildId, fake.world.general.id, rootId],
  });
  const noGateway = () => {
    expect(fake.gateway.connections).toBe(0);
    expect(fake.requestsTo("GET", /\/gateway/)).toEqual([]);
  };

  it("starts the question's thread, named after it, then posts, edits and shows typing — with no gateway", async () => {
    const adapter = await startWorker();
    const question = fake.say({ content: `${fake.mention} how do I rotate the API keys?` });
    await adapter.startSendOnly();
    const conversation = threadOf(question.id);

    await adapter.setTyping(conversation, true);
    const posted = await adapter.post({ conversation, text: "checking…", replyTo: question.id });
    await adapter.edit(posted, "Rotate them under **Settings → Keys**.");
    await adapter.setTyping(conversation, false);

    expect(fake.thread(question.id)).toMatchObject({
      parentId: fake.world.general.id,
      name: "how do I rotate the API keys?",
    });
    const [answer, ...others] = fake.botMessages();
    expect(others).toEqual([]);
    expect(answer).toMatchObject({
      id: posted.id,
      channelId: question.id,
      content: "Rotate them under **Settings → Keys**.",
    });
    // Before the thread existed, "typing…" showed where the question was asked.
    expect(fake.world.typing.map((typing) => typing.channelId)).toEqual([fake.world.general.id]);
    noGateway();
  });

  it("finds a conversation's thread that already exists, and posts into direct messages", async () => {
    const adapter = await startWorker();
    const question = fake.say({ content: `${fake.mention} status?` });
    fake.world.startThread(fake.world.general.id, question.id, { name: "status?" });
    const dm = fake.dmWith();
    await adapter.startSendOnly();

    await adapter.post({ conversation: threadOf(question.id), text: "all green" });
    await adapter.post({ conversation: { platform: "discord", path: ["@dm", dm.id] }, text: "hello" });

    expect(fake.botMessages().map(({ channelId, content }) => ({ channelId, content }))).toEqual([
      { channelId: question.id, content: "all green" },
      { channelId: dm.id, content: "hello" },
    ]);
    expect(fake.requestsTo("POST", /\/threads$/)).toEqual([]);
    noGateway();
  });

  it("an Approve press on a prompt the worker posted is decided by the process on the gateway", async () => {
    const adapter = await startWorker();
    const question = fake.say({ content: `${fake.mention} refund my 40 EUR` });
    await adapter.startSendOnly();
    const posted = await adapter.post({
      conversation: threadOf(question.id),
      text: "billing wants to run refund(40)",
      approval: { requestId: "req-1", requesterId: fake.world.ada.id },
    });
    noGateway();

    const ingress = await createDiscordAdapter({ token: fake.token, apiUrl: fake.apiUrl });
    const presses: ApprovalPress[] = [];
    ingress.useApprovals({
      async decide(press) {
        presses.push(press);
        return { kind: "decided", approved: press.approved, by: press.actor.id };
      },
    });
    await ingress.start(async () => undefined);
    try {
      const prompt = fake.world.message(posted.id);
      if (!prompt) throw new Error("the prompt was not posted");
      const press = fake.press(prompt, "switchboard:approve:req-1");
      await waitFor("the press answered", () => press.callback);
      expect(presses).toMatchObject([{ requestId: "req-1", approved: true, platform: "discord" }]);
      expect(fake.world.message(posted.id)?.content).toBe(
        `billing wants to run refund(40)\n\n✅ Approved by <@${fake.world.ada.id}>`,
      );
    } finally {
      await ingress.stop();
    }
  });

  it("refuses to answer a slash command it holds no interaction for, rather than posting it in the open", async () => {
    const adapter = await startWorker();
    const question = fake.say({ content: "x" });
    await adapter.startSendOnly();
    await expect(
      adapter.post({
        conversation: threadOf(question.id),
        text: "your memory: …",
        replyTo: "interaction-42",
      }),
    ).rejects.toMatchObject({ name: "InteractionOutOfReachError" });
    expect(fake.botMessages()).toEqual([]);
  });

  it("stop() after startSendOnly ends typing renewals and delivery", async () => {
    const adapter = await startWorker({ typingIntervalMs: 1_000 });
    const question = fake.say({ content: "x" });
    await adapter.startSendOnly();
    await adapter.setTyping(threadOf(question.id), true);
    await adapter.stop();
    worker = undefined;
    const typed = fake.world.typing.length;
    await new Promise((resolve) => setTimeout(resolve, 1_300));
    expect(fake.world.typing).toHaveLength(typed);
    await expect(adapter.post({ conversation: threadOf(question.id), text: "late" })).rejects.toThrow(
      /not started/,
    );
    noGateway();
  });

  it("a wrong token fails at start, explained, without opening a gateway connection", async () => {
    const adapter = await startWorker({ token: "not-the-token" });
    const failure = adapter.startSendOnly();
    await expect(failure).rejects.toMatchObject({ name: "DiscordStartupError", failure: "invalid-token" });
    await expect(failure).rejects.toThrow(/Reset Token/);
    noGateway();
  });
});
