/**
 * Encrypted rooms against a real homeserver (a private Synapse) and a real encrypting client
 * (matrix-js-sdk with its WASM crypto): the bot answers an encrypted DM and a thread in an
 * encrypted group room, and the client decrypts the answers; a restart between two messages
 * loses nothing; a second device of the user can read the bot's answers; a send-only worker never
 * posts plaintext into an encrypted room.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore, type Store } from "@switchboard/core";
import { waitFor } from "@switchboard/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMatrixAdapter } from "../packages/matrix/src/index.ts";
import { PrivateSynapse, type RegisteredUser, synapseMissing } from "./services/synapse-service.ts";
import { E2eeClient } from "./support/matrix/e2ee-client.ts";
import { type SynapseBot, startSynapseBot } from "./support/matrix/synapse-bot.ts";

const missing = synapseMissing();
/** How long the bot waits for a late key before asking to resend (short, so the test does not wait a minute). */
const NOTICE_SECONDS = 5;
const RESEND_NOTICE =
  /^I could not read your message: the key to decrypt it never reached me\. Please send it again\.$/;
if (missing) process.stderr.write(`matrix E2EE tests skipped: ${missing}\n`);

describe.skipIf(missing !== undefined)("Matrix end-to-end encryption on a real Synapse", () => {
  let synapse: PrivateSynapse;
  let botUser: RegisteredUser;
  let aliceUser: RegisteredUser;
  let alice: E2eeClient;
  let store: Store;
  let root: string;
  let bot: SynapseBot | undefined;
  let dm: string;

  const startBot = async () => {
    bot = await startSynapseBot({
      homeserverUrl: synapse.url,
      bot: botUser,
      store,
      config: { encryption: true, displayName: "Switchboard", undecryptableNoticeSeconds: NOTICE_SECONDS },
    });
    return bot;
  };

  beforeAll(async () => {
    synapse = await PrivateSynapse.start();
    root = await mkdtemp(join(tmpdir(), "switchboard-e2ee-"));
    store = await openStore(`sqlite://${join(root, "switchboard.db")}`);
    botUser = await synapse.register("switchboard", { displayName: "Switchboard" });
    aliceUser = await synapse.register("alice", { displayName: "Alice" });
    alice = await E2eeClient.start(aliceUser, synapse.url);
    await startBot();
  }, 120_000);

  afterAll(async () => {
    alice?.stop();
    await bot?.stop();
    await store?.close();
    await synapse?.stop();
    if (root) await rm(root, { recursive: true, force: true });
  });

  /** Every event the bot put into `roomId` apart from its membership, as the homeserver stores it. */
  async function botEventTypes(roomId: string): Promise<string[]> {
    const page = (await synapse.request(
      "GET",
      `/_matrix/client/v3/rooms/${encodeURIComponent(roomId)}/messages?dir=b&limit=200`,
      aliceUser.accessToken,
    )) as { chunk: { sender: string; type: string }[] };
    return page.chunk
      .filter((event) => event.sender === botUser.userId && event.type !== "m.room.member")
      .map((event) => event.type);
  }

  it("answers an encrypted DM, and the answer is encrypted and decrypts", async () => {
    dm = await alice.createEncryptedRoom([botUser.userId], { direct: true });
    await alice.waitForJoin(dm, botUser.userId);
    const question = await alice.send(dm, "hello in private");
    const answer = await alice.waitForMessage(dm, botUser.userId, /^echo: hello in private$/);
    expect(answer.wireType).toBe("m.room.encrypted");
    // The engine is told it came encrypted (/status says so).
    expect(bot?.responder.turns.find((turn) => turn.message.id === question)?.message.encrypted).toBe(true);
    expect(await botEventTypes(dm)).not.toContain("m.room.message");
  });

  it("doctor's check finds the device's keys on the homeserver matching the store", async () => {
    const check = await (bot as SynapseBot).adapter.check();
    expect(check.warnings).toEqual([]);
    expect(check.notes?.join("\n")).toMatch(
      new RegExp(
        `device ${botUser.deviceId}: crypto state in the store matches the homeserver's keys; \\d+ one-time keys uploaded`,
      ),
    );
  });

  it("answers a mention in an encrypted group room in a thread, and a follow-up in that thread", async () => {
    const group = await alice.createEncryptedRoom([botUser.userId], { name: "team" });
    await alice.waitForJoin(group, botUser.userId);
    await alice.send(group, "just chatting");
    const question = await alice.send(group, "Switchboard: what is new?", { mentions: [botUser.userId] });
    const answer = await alice.waitForMessage(group, botUser.userId, /^echo: .*what is new\?$/);
    expect(answer.content["m.relates_to"]).toMatchObject({ rel_type: "m.thread", event_id: question });
    await alice.send(group, "and then?", { thread: question });
    const followUp = await alice.waitForMessage(group, botUser.userId, /^echo: and then\?$/);
    expect(followUp.content["m.relates_to"]).toMatchObject({ rel_type: "m.thread", event_id: question });
    // The unaddressed top-level message got no answer.
    expect(
      (await alice.seen(group)).some(
        (event) => /just chatting/.test(String(event.content.body)) && event.sender === botUser.userId,
      ),
    ).toBe(false);
    const types = await botEventTypes(group);
    expect(types.length).toBeGreaterThan(0);
    expect(types.every((type) => type === "m.room.encrypted")).toBe(true);
  });

  it("loses nothing across a restart: a message sent while it is down is decrypted and answered", async () => {
    await bot?.stop();
    bot = undefined;
    await alice.send(dm, "while you were away");
    await startBot();
    await alice.waitForMessage(dm, botUser.userId, /^echo: while you were away$/);
    await alice.send(dm, "and after");
    await alice.waitForMessage(dm, botUser.userId, /^echo: and after$/);
    const logged = (bot as SynapseBot | undefined)?.logger.lines ?? [];
    expect(logged.filter((line) => /decrypt/i.test(line.message) && line.level !== "debug")).toEqual([]);
  });

  it("shares its keys with a second device of the user", async () => {
    const second = await E2eeClient.start(await synapse.login(aliceUser, "second phone"), synapse.url);
    try {
      await alice.send(dm, "can my phone read you?");
      const onSecond = await second.waitForMessage(dm, botUser.userId, /^echo: can my phone read you\?$/);
      expect(onSecond.decryptionFailed).toBe(false);
      expect(onSecond.wireType).toBe("m.room.encrypted");
    } finally {
      second.stop();
    }
  });

  /** Resolves with the bot's log line about `eventId` whose message matches. */
  const logged = (eventId: string, message: RegExp) =>
    waitFor(
      `the bot to log ${message} for ${eventId}`,
      () => bot?.logger.lines.find((line) => line.fields.eventId === eventId && message.test(line.message)),
      30_000,
    );

  it("reads a message whose key reaches it late, and answers it once the key arrives", async () => {
    const room = await alice.createEncryptedRoom([botUser.userId], { direct: true });
    await alice.waitForJoin(room, botUser.userId);
    alice.holdToDeviceFor(botUser.userId);
    const late = await alice.send(room, "my key is late");
    await logged(late, /keeping it until its key arrives/);
    expect(await alice.endHold({ deliver: true })).toBeGreaterThan(0);
    const answer = await alice.waitForMessage(room, botUser.userId, /^echo: my key is late$/);
    expect(answer.content["m.relates_to"]).toMatchObject({ "m.in_reply_to": { event_id: late } });
    await logged(late, /decrypted a kept Matrix message: its key arrived/);
    expect(
      (await alice.seen(room)).filter((event) => RESEND_NOTICE.test(String(event.content.body))),
    ).toEqual([]);
  });

  it("tells the sender once, encrypted, when a key never arrives, and answers once keys flow again", async () => {
    const room = await alice.createEncryptedRoom([botUser.userId], { direct: true });
    await alice.waitForJoin(room, botUser.userId);
    alice.holdToDeviceFor(botUser.userId);
    const first = await alice.send(room, "lost one");
    const second = await alice.send(room, "lost two");
    await logged(second, /keeping it until its key arrives/);
    // Both messages use one session whose key never comes: one problem, one notice.
    const notice = await alice.waitForMessage(room, botUser.userId, RESEND_NOTICE);
    expect(notice.wireType).toBe("m.room.encrypted");
    expect(notice.content["m.relates_to"]).toMatchObject({ "m.in_reply_to": { event_id: first } });
    await logged(first, /asked its sender to send it again/);
    await logged(second, /already asked to resend/);
    expect(await alice.endHold({ deliver: false })).toBeGreaterThan(0);
    // A new session, shared with the bot this time: the resent message is answered.
    await alice.client.getCrypto()?.forceDiscardSession(room);
    await alice.send(room, "lost one, again");
    await alice.waitForMessage(room, botUser.userId, /^echo: lost one, again$/);
    const seen = await alice.seen(room);
    expect(seen.filter((event) => RESEND_NOTICE.test(String(event.content.body)))).toHaveLength(1);
    expect(seen.some((event) => /^echo: lost (one|two)$/.test(String(event.content.body)))).toBe(false);
    // The metrics' source: every failure counted, nothing left waiting.
    const counts = (bot as SynapseBot).adapter.encryptionCounts();
    expect(counts?.waiting).toBe(0);
    expect(counts?.decryptionFailures.missing_key).toBeGreaterThanOrEqual(2);
  });

  it("a send-only worker posts into an encrypted room only encrypted by the leader's device, never plaintext", async () => {
    const conversation = { platform: "matrix", path: [dm] };
    const leader = (bot as SynapseBot).adapter;
    // A worker of the cluster: it encrypts through the process that syncs (BullMQ carries the call).
    const worker = await createMatrixAdapter(
      { homeserverUrl: synapse.url, accessToken: botUser.accessToken, encryption: true },
      { encryptThroughLeader: (request) => leader.encryptForSendOnly(request) },
    );
    // One whose leader is gone, and one configured without encryption.
    const stranded = await createMatrixAdapter(
      { homeserverUrl: synapse.url, accessToken: botUser.accessToken, encryption: true },
      { encryptThroughLeader: () => Promise.reject(new Error("none leads now")) },
    );
    const plain = await createMatrixAdapter({ homeserverUrl: synapse.url, accessToken: botUser.accessToken });
    for (const adapter of [worker, stranded, plain]) await adapter.startSendOnly();
    try {
      await worker.post({ conversation, text: "from a worker", idempotencyKey: "worker-post-1" });
      const posted = await alice.waitForMessage(dm, botUser.userId, /^from a worker$/);
      expect(posted.wireType).toBe("m.room.encrypted");
      await expect(stranded.post({ conversation, text: "stranded" })).rejects.toThrow(
        /could not encrypt for .* through the process that holds the bot's device \(none leads now\); nothing was posted, never plaintext/,
      );
      await expect(plain.post({ conversation, text: "plain" })).rejects.toThrow(
        /encrypted.*not posting plaintext/,
      );
    } finally {
      for (const adapter of [worker, stranded, plain]) await adapter.stop();
    }
    const types = await botEventTypes(dm);
    expect(types.length).toBeGreaterThan(3);
    expect(types.filter((type) => type !== "m.room.encrypted")).toEqual([]);
  });
});

describe.skipIf(missing !== undefined)("plain rooms on a real Synapse", () => {
  let synapse: PrivateSynapse;
  let store: Store;
  let bot: SynapseBot;
  let aliceUser: RegisteredUser;
  let botUser: RegisteredUser;

  beforeAll(async () => {
    synapse = await PrivateSynapse.start();
    store = await openStore("sqlite::memory:");
    botUser = await synapse.register("switchboard", { displayName: "Switchboard" });
    aliceUser = await synapse.register("alice", { displayName: "Alice" });
    bot = await startSynapseBot({
      homeserverUrl: synapse.url,
      bot: botUser,
      store,
      config: { displayName: "Switchboard" },
    });
  }, 120_000);

  afterAll(async () => {
    await bot?.stop();
    await store?.close();
    await synapse?.stop();
  });

  const call = (method: string, path: string, body?: unknown) =>
    synapse.request(method, path, aliceUser.accessToken, body);

  async function messagesFromBot(
    roomId: string,
  ): Promise<{ event_id: string; content: Record<string, unknown> }[]> {
    const page = (await call(
      "GET",
      `/_matrix/client/v3/rooms/${encodeURIComponent(roomId)}/messages?dir=b&limit=100`,
    )) as {
      chunk: { sender: string; type: string; event_id: string; content: Record<string, unknown> }[];
    };
    return page.chunk.filter((event) => event.sender === botUser.userId && event.type === "m.room.message");
  }

  it("answers a DM with a plain reply and a group mention in a thread", async () => {
    const { room_id: dm } = (await call("POST", "/_matrix/client/v3/createRoom", {
      invite: [botUser.userId],
      is_direct: true,
      preset: "trusted_private_chat",
    })) as { room_id: string };
    await waitFor(
      "the bot to join the DM",
      async () => {
        const members = (await call(
          "GET",
          `/_matrix/client/v3/rooms/${encodeURIComponent(dm)}/joined_members`,
        )) as {
          joined: Record<string, unknown>;
        };
        return botUser.userId in members.joined || undefined;
      },
      30_000,
    );
    const { event_id: hello } = (await call(
      "PUT",
      `/_matrix/client/v3/rooms/${encodeURIComponent(dm)}/send/m.room.message/t1`,
      {
        msgtype: "m.text",
        body: "hi bot",
      },
    )) as { event_id: string };
    const [reply] = await waitFor(
      "the DM answer",
      async () => {
        const found = await messagesFromBot(dm);
        return found.length > 0 ? found : undefined;
      },
      30_000,
    );
    expect(reply?.content.body).toBe("echo: hi bot");
    expect(reply?.content["m.relates_to"]).toMatchObject({ "m.in_reply_to": { event_id: hello } });

    const { room_id: group } = (await call("POST", "/_matrix/client/v3/createRoom", {
      invite: [botUser.userId],
      preset: "private_chat",
      name: "plain team",
    })) as { room_id: string };
    await waitFor(
      "the bot to join the group",
      async () => {
        const members = (await call(
          "GET",
          `/_matrix/client/v3/rooms/${encodeURIComponent(group)}/joined_members`,
        )) as {
          joined: Record<string, unknown>;
        };
        return botUser.userId in members.joined || undefined;
      },
      30_000,
    );
    const { event_id: question } = (await call(
      "PUT",
      `/_matrix/client/v3/rooms/${encodeURIComponent(group)}/send/m.room.message/t2`,
      {
        msgtype: "m.text",
        body: "Switchboard: status please",
        "m.mentions": { user_ids: [botUser.userId] },
      },
    )) as { event_id: string };
    const [answer] = await waitFor(
      "the group answer",
      async () => {
        const found = await messagesFromBot(group);
        return found.length > 0 ? found : undefined;
      },
      30_000,
    );
    expect(answer?.content.body).toBe("echo: status please");
    expect(answer?.content["m.relates_to"]).toMatchObject({ rel_type: "m.thread", event_id: question });
  });
});
