/**
 * The Matrix adapter's main flows in plain (unencrypted) rooms against a real homeserver — a
 * private Synapse, one for the file — and a real client (matrix-js-sdk) as the user: a DM, mention
 * gating, threads, replies, edits not answered, streaming by edits, and an approval by reaction.
 * The stand-in in test/support/matrix stays for what a real server will not do on demand (faults,
 * rate limits, hostile events). Encrypted rooms: matrix.e2ee.synapse.test.ts.
 */
import { openStore, type Store } from "@switchboard/core";
import { waitFor } from "@switchboard/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PrivateSynapse, type RegisteredUser, synapseMissing } from "./services/synapse-service.ts";
import { E2eeClient, type SeenEvent } from "./support/matrix/e2ee-client.ts";
import { type SynapseBot, startSynapseBot } from "./support/matrix/synapse-bot.ts";
import { approveByReaction, followStreamedAnswer } from "./support/matrix/synapse-flows.ts";

const missing = synapseMissing();
if (missing) process.stderr.write(`matrix Synapse tests skipped: ${missing}\n`);

const relationOf = (event: SeenEvent) =>
  (event.content["m.relates_to"] ?? {}) as {
    rel_type?: string;
    event_id?: string;
    "m.in_reply_to"?: { event_id?: string };
  };

describe.skipIf(missing !== undefined)("Matrix plain rooms on a real Synapse", () => {
  let synapse: PrivateSynapse;
  let store: Store;
  let bot: SynapseBot;
  let botUser: RegisteredUser;
  let alice: E2eeClient;
  let group: string;

  beforeAll(async () => {
    synapse = await PrivateSynapse.start();
    store = await openStore("sqlite::memory:");
    botUser = await synapse.register("switchboard", { displayName: "Switchboard" });
    alice = await E2eeClient.start(await synapse.register("alice", { displayName: "Alice" }), synapse.url);
    bot = await startSynapseBot({
      homeserverUrl: synapse.url,
      bot: botUser,
      store,
      config: { displayName: "Switchboard", streaming: "on", streamEditIntervalMs: 250 },
    });
    group = await alice.createRoom([botUser.userId], { name: "plain team", encrypted: false });
    await alice.waitForJoin(group, botUser.userId);
  }, 120_000);

  afterAll(async () => {
    alice?.stop();
    await bot?.stop();
    await store?.close();
    await synapse?.stop();
  });

  /** The bot's messages in the room (edits left out), as the user's client has them. */
  const botMessages = async (roomId: string) =>
    (await alice.seen(roomId)).filter(
      (event) =>
        event.sender === botUser.userId &&
        event.type === "m.room.message" &&
        relationOf(event).rel_type !== "m.replace",
    );
  const answersTo = async (roomId: string, eventId: string) =>
    (await botMessages(roomId)).filter(
      (event) =>
        relationOf(event).event_id === eventId || relationOf(event)["m.in_reply_to"]?.event_id === eventId,
    );

  it("answers a DM without a mention, as a plain reply, and marks it read", async () => {
    const dm = await alice.createRoom([botUser.userId], { direct: true, encrypted: false });
    await alice.waitForJoin(dm, botUser.userId);
    const hello = await alice.send(dm, "hi bot");
    const answer = await alice.waitForMessage(dm, botUser.userId, /^echo: hi bot$/);
    expect(answer.wireType).toBe("m.room.message");
    expect(relationOf(answer)).toEqual({ "m.in_reply_to": { event_id: hello } });
    await waitFor(
      "the read receipt",
      () => alice.readUpTo(dm, botUser.userId) === hello || undefined,
      30_000,
    );
    expect(bot.responder.turns.find((turn) => turn.message.id === hello)?.message.encrypted).toBeUndefined();
  });

  it("in a group room answers mentions only, in a thread rooted at the mention; the thread needs no mention", async () => {
    const chatting = await alice.send(group, "just chatting, not for the bot");
    const question = await alice.send(group, "Switchboard: what is new?", { mentions: [botUser.userId] });
    const answer = await alice.waitForMessage(group, botUser.userId, /^echo: what is new\?$/);
    expect(relationOf(answer)).toMatchObject({ rel_type: "m.thread", event_id: question });
    const followUp = await alice.send(group, "and then?", { thread: question });
    const inThread = await alice.waitForMessage(group, botUser.userId, /^echo: and then\?$/);
    expect(relationOf(inThread)).toMatchObject({
      rel_type: "m.thread",
      event_id: question,
      "m.in_reply_to": { event_id: followUp },
    });
    expect(await answersTo(group, chatting)).toEqual([]);
    expect(bot.responder.turns.map((turn) => turn.message.id)).not.toContain(chatting);
  });

  it("continues the conversation when someone replies to the bot outside the thread", async () => {
    const question = await alice.send(group, "Switchboard: remember blue", { mentions: [botUser.userId] });
    const answer = await alice.waitForMessage(group, botUser.userId, /^echo: remember blue$/);
    const reply = await alice.send(group, "what did I say?", { replyTo: answer.eventId });
    await alice.waitForMessage(group, botUser.userId, /^echo: what did I say\?$/);
    const turns = bot.responder.turns;
    const asked = turns.find((turn) => turn.message.id === question);
    const replied = turns.find((turn) => turn.message.id === reply);
    // The reply is answered in the conversation of the bot message it replies to.
    expect(replied?.key).toBe(asked?.key);
  });

  it("never answers an edit as a new question", async () => {
    const question = await alice.send(group, "Switchboard: first wording", { mentions: [botUser.userId] });
    await alice.waitForMessage(group, botUser.userId, /^echo: first wording$/);
    const edit = await alice.edit(group, question, "Switchboard: second wording");
    // A message sent after the edit is answered; by then the edit has been seen and skipped.
    await alice.send(group, "Switchboard: after the edit", { mentions: [botUser.userId] });
    await alice.waitForMessage(group, botUser.userId, /^echo: after the edit$/);
    expect(bot.responder.turns.map((turn) => turn.message.id)).not.toContain(edit);
    expect(
      (await botMessages(group)).some((event) => /second wording/.test(String(event.content.body))),
    ).toBe(false);
  });

  it("streams an answer by editing its first message until it is whole", async () => {
    const dm = await alice.createRoom([botUser.userId], { direct: true, encrypted: false });
    await alice.waitForJoin(dm, botUser.userId);
    const asked = Date.now();
    const { question, first, edits } = await followStreamedAnswer(alice, dm, botUser.userId, (text) =>
      alice.send(dm, text),
    );
    expect(relationOf(first)).toEqual({ "m.in_reply_to": { event_id: question } });
    // The edits replace; the reply relation stays on the first message.
    expect(edits.every((edit) => relationOf(edit)["m.in_reply_to"] === undefined)).toBe(true);
    expect(alice.sawTyping(dm, botUser.userId, asked)).toBe(true);
  });

  it("decides an approval by a ✅ reaction on the prompt", async () => {
    const approver = await synapse.register("approver", { displayName: "Approver" });
    const approved = await approveByReaction({
      alice,
      homeserverUrl: synapse.url,
      approver,
      encrypted: false,
    });
    try {
      expect(approved.prompt.wireType).toBe("m.room.message");
      expect(approved.answer.wireType).toBe("m.room.message");
    } finally {
      await approved.stop();
    }
  });
});
