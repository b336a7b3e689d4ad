/**
 * Encrypted rooms against a real homeserver (a private Synapse, one for the file) and a real
 * encrypting client (matrix-js-sdk with its WASM crypto): the bot answers an encrypted DM and a
 * thread in an encrypted group room, and the client decrypts the answers; streamed answers are
 * encrypted edits; an approval is decided by an encrypted reaction; typing and read receipts show;
 * a restart between two messages loses nothing; a second device of the user can read the bot's
 * answers; a message whose key comes late is answered when it comes, one whose key never comes gets
 * one notice; `trust: verified-only` refuses an unverified device's message; a send-only worker
 * posts only through the leader's device, never plaintext. Plain rooms: matrix.synapse.test.ts.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore, type Store } from "@switchboard/core";
import { waitFor } from "@switchboard/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backupKeyOf } from "../packages/matrix/src/crypto/key-backup.ts";
import { decodeRecoveryKey, newRecoveryKey } from "../packages/matrix/src/crypto/recovery-key.ts";
import { createMatrixAdapter } from "../packages/matrix/src/index.ts";
import { PrivateSynapse, type RegisteredUser, synapseMissing } from "./services/synapse-service.ts";
import { E2eeClient } from "./support/matrix/e2ee-client.ts";
import { decryptWithStoredState } from "./support/matrix/stored-crypto.ts";
import { type SynapseBot, startSynapseBot } from "./support/matrix/synapse-bot.ts";
import { approveByReaction, followStreamedAnswer } from "./support/matrix/synapse-flows.ts";

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
      config: {
        encryption: true,
        displayName: "Switchboard",
        undecryptableNoticeSeconds: NOTICE_SECONDS,
        streaming: "on",
        streamEditIntervalMs: 250,
      },
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

  it("streams an answer by encrypted edits, shows typing and marks the question read", async () => {
    const asked = Date.now();
    const { question, first, edits } = await followStreamedAnswer(alice, dm, botUser.userId, (text) =>
      alice.send(dm, text),
    );
    expect(first.content["m.relates_to"]).toEqual({ "m.in_reply_to": { event_id: question } });
    // Every edit went encrypted; the homeserver sees only `m.room.encrypted`, relation included.
    expect(edits.map((edit) => edit.wireType)).toEqual(edits.map(() => "m.room.encrypted"));
    expect(alice.sawTyping(dm, botUser.userId, asked)).toBe(true);
    await waitFor(
      "the read receipt",
      () => alice.readUpTo(dm, botUser.userId) === question || undefined,
      30_000,
    );
  });

  it("decides an approval by a ✅ reaction on an encrypted prompt", async () => {
    const approver = await synapse.register("approver", { displayName: "Approver" });
    const approved = await approveByReaction({
      alice,
      homeserverUrl: synapse.url,
      approver,
      encrypted: true,
    });
    try {
      expect(approved.prompt.wireType).toBe("m.room.encrypted");
      expect(approved.answer.wireType).toBe("m.room.encrypted");
      const seen = await alice.seen(approved.room);
      // matrix-js-sdk (like Element) sends reactions in the clear: the bot reads them either way.
      expect(
        seen.find((event) => event.type === "m.reaction" && event.sender === aliceUser.userId),
      ).toBeDefined();
      // Everything the bot put into the room — the prompt, its seeded ✅ ❌, the edit, the answer — is encrypted.
      const fromBot = seen.filter(
        (event) => event.sender === approver.userId && event.type !== "m.room.member",
      );
      expect(fromBot.filter((event) => event.type === "m.reaction")).toHaveLength(2);
      expect(fromBot.filter((event) => event.wireType !== "m.room.encrypted")).toEqual([]);
    } finally {
      await approved.stop();
    }
  });

  it("with trust verified-only, refuses a message from a device its owner has not verified, and says so", async () => {
    const strictUser = await synapse.register("strict", { displayName: "Strict" });
    const strictStore = await openStore("memory://");
    const strict = await startSynapseBot({
      homeserverUrl: synapse.url,
      bot: strictUser,
      store: strictStore,
      config: { encryption: { trust: "verified-only" }, displayName: "Strict" },
    });
    try {
      const room = await alice.createEncryptedRoom([strictUser.userId], { direct: true });
      await alice.waitForJoin(room, strictUser.userId);
      // Alice's device is not cross-signed: a verified-only bot does not read it.
      const refused = await alice.send(room, "can you read me?");
      const line = await waitFor(
        "the refusal in the log",
        () => strict.logger.lines.find((entry) => entry.fields.eventId === refused),
        30_000,
      );
      expect(line).toMatchObject({
        level: "warn",
        message:
          "refused a Matrix message from a device its owner has not verified (matrix.encryption.trust is verified-only); it is not answered",
        fields: { sender: aliceUser.userId, roomId: room },
      });
      expect(strict.responder.turns).toEqual([]);
      expect(strict.adapter.encryptionCounts()).toMatchObject({
        decryptionFailures: { unverified_device: 1 },
        waiting: 0,
      });
    } finally {
      await strict.stop();
      await strictStore.close();
    }
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

  it("backs its room keys up to the homeserver, and a bot rebuilt from nothing restores them and reads what came before", async () => {
    const recoveryKey = newRecoveryKey();
    const keeperUser = await synapse.register("keeper", { displayName: "Keeper" });
    const config = { encryption: { recoveryKey }, displayName: "Keeper" };
    const firstStore = await openStore("memory://");
    const first = await startSynapseBot({
      homeserverUrl: synapse.url,
      bot: keeperUser,
      store: firstStore,
      config,
    });
    const room = await alice.createEncryptedRoom([keeperUser.userId], { direct: true });
    await alice.waitForJoin(room, keeperUser.userId);
    const before = await alice.send(room, "written before the rebuild");
    await alice.waitForMessage(room, keeperUser.userId, /^echo: written before the rebuild$/);
    // Alice's session and the bot's own: both in the backup, readable with the recovery key alone.
    const backedUp = await waitFor(
      "the room keys in the backup",
      async () => {
        const { version } = (await synapse.request(
          "GET",
          "/_matrix/client/v3/room_keys/version",
          keeperUser.accessToken,
        )) as {
          version: string;
        };
        const keys = (await synapse.request(
          "GET",
          `/_matrix/client/v3/room_keys/keys?version=${version}`,
          keeperUser.accessToken,
        )) as {
          rooms: Record<string, { sessions: Record<string, { session_data: Record<string, string> }> }>;
        };
        const sessions = Object.values(keys.rooms[room]?.sessions ?? {});
        return sessions.length >= 2 ? sessions : undefined;
      },
      30_000,
    );
    const { key } = backupKeyOf(decodeRecoveryKey(recoveryKey));
    for (const { session_data: data } of backedUp) {
      const session = JSON.parse(
        key.decryptV1(data.ephemeral ?? "", data.mac ?? "", data.ciphertext ?? ""),
      ) as {
        session_key?: string;
      };
      expect(session.session_key).toEqual(expect.any(String));
    }
    expect((await first.adapter.check()).notes?.join("\n")).toMatch(
      /Matrix key backup version \S+: the recovery key opens it; it holds [2-9]\d* room keys/,
    );
    await first.stop();
    await firstStore.close();

    // Rebuilt from nothing: the store is gone, the bot logs in as a new device with the same recovery key.
    const rebuiltDevice = await synapse.login(keeperUser, "rebuilt");
    const rebuiltStore = await openStore("memory://");
    const rebuilt = await startSynapseBot({
      homeserverUrl: synapse.url,
      bot: rebuiltDevice,
      store: rebuiltStore,
      config,
    });
    try {
      const restored = rebuilt.logger.lines.find(
        (line) => line.message === "restored room keys from the Matrix key backup",
      );
      expect(restored?.fields.imported).toBeGreaterThanOrEqual(2);
      // The new device reads the message written before it existed.
      const old = await synapse.request(
        "GET",
        `/_matrix/client/v3/rooms/${encodeURIComponent(room)}/event/${encodeURIComponent(before)}`,
        keeperUser.accessToken,
      );
      const decrypted = await decryptWithStoredState(rebuiltStore, rebuiltDevice, room, old);
      expect(decrypted.content).toMatchObject({ body: "written before the rebuild" });
      // And it answers as before.
      await alice.send(room, "after the rebuild");
      await alice.waitForMessage(room, keeperUser.userId, /^echo: after the rebuild$/);
    } finally {
      await rebuilt.stop();
      await rebuiltStore.close();
    }
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
