import { createMemoryLogger } from "@switchboard/core/testing";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type KeyValue, memoryKeyValue } from "../connect/key-value.ts";
import type { MatrixEvent } from "../receive/matrix-event.ts";
import { classifyDecryptionFailure } from "./decryption-failure.ts";
import { UndecryptableEvents } from "./undecryptable-events.ts";
import { type WaitingEvent, WaitingEvents } from "./waiting-events.ts";

/** What the WASM crypto throws: a MegolmDecryptionError's fields. */
const megolmError = (code: number, withheld?: string) => ({
  code,
  description: `decryption error ${code}`,
  maybe_withheld: withheld,
});
const MISSING_KEY = megolmError(0);
const UNSIGNED_DEVICE = megolmError(4);

const encrypted = (id: string, session = "s1", sender = "@alice:hs", thread?: string): MatrixEvent => ({
  event_id: id,
  type: "m.room.encrypted",
  sender,
  origin_server_ts: 1,
  content: {
    algorithm: "m.megolm.v1.aes-sha2",
    session_id: session,
    ciphertext: "…",
    ...(thread ? { "m.relates_to": { rel_type: "m.thread", event_id: thread } } : {}),
  },
});

describe("classifyDecryptionFailure", () => {
  it.each([
    [megolmError(0), "wait", "missing_key"],
    [megolmError(1), "wait", "unknown_message_index"],
    [megolmError(0, "The sender has disabled encrypting to unverified devices."), "wait", "withheld"],
    [megolmError(3), "refused", "unverified_device"],
    [megolmError(4), "refused", "unverified_device"],
    [megolmError(5), "refused", "unverified_device"],
    [megolmError(2), "unreadable", "invalid"],
    [megolmError(6), "unreadable", "invalid"],
    [megolmError(7), "unreadable", "invalid"],
    [new Error("Room is not encrypted"), "unreadable", "invalid"],
    ["a string", "unreadable", "invalid"],
  ])("%o → %s (%s)", (error, kind, reason) => {
    expect(classifyDecryptionFailure(error)).toMatchObject({ kind, reason });
  });
});

describe("UndecryptableEvents", () => {
  const ROOM = "!room:hs";
  let kv: KeyValue;
  let logger: ReturnType<typeof createMemoryLogger>;
  let readable: Set<string>;
  let delivered: string[];
  let notices: WaitingEvent[];
  let failNotices: number;
  let failDeliveries: number;
  let events: UndecryptableEvents | undefined;

  beforeEach(() => {
    vi.useFakeTimers({ now: 1_000_000 });
    kv = memoryKeyValue();
    logger = createMemoryLogger();
    readable = new Set();
    delivered = [];
    notices = [];
    failNotices = 0;
    failDeliveries = 0;
  });
  afterEach(async () => {
    await events?.stop();
    vi.useRealTimers();
  });

  async function open(options: { maxEvents?: number; verifiedOnly?: boolean } = {}) {
    events = new UndecryptableEvents({
      waiting: new WaitingEvents({ kv, scope: "@bot:hs", maxEvents: options.maxEvents ?? 10 }),
      noticeAfterMs: 60_000,
      verifiedOnly: options.verifiedOnly ?? false,
      decrypt: async (_roomId, raw) => {
        const event = raw as MatrixEvent;
        if (!readable.has(String(event.content.session_id))) throw MISSING_KEY;
        return { ...event, type: "m.room.message", content: { msgtype: "m.text", body: "hello" } };
      },
      deliver: async (_roomId, event) => {
        if (failDeliveries > 0) {
          failDeliveries--;
          throw new Error("this ingress no longer leads");
        }
        delivered.push(event.event_id);
      },
      postNotice: async (entry) => {
        if (failNotices > 0) {
          failNotices--;
          throw new Error("homeserver down");
        }
        notices.push(entry);
      },
      logger,
    });
    await events.start();
    return events;
  }

  const fail = (target: UndecryptableEvents, event: MatrixEvent, error: unknown = MISSING_KEY) =>
    target.failed(ROOM, event, event, error);

  it("keeps an event whose key is missing and hands it on when the key arrives, before any notice", async () => {
    const target = await open();
    await fail(target, encrypted("$a"));
    expect(target.counts()).toEqual({ decryptionFailures: { missing_key: 1 }, waiting: 1 });
    readable.add("s1");
    await target.keysArrived([{ roomId: "!other:hs", sessionId: "s1" }]);
    expect(delivered).toEqual([]);
    await target.keysArrived([{ roomId: ROOM, sessionId: "s1" }]);
    expect(delivered).toEqual(["$a"]);
    expect(target.counts().waiting).toBe(0);
    await vi.advanceTimersByTimeAsync(120_000);
    expect(notices).toEqual([]);
  });

  it("keeps waiting events across a restart and reads those whose key came meanwhile", async () => {
    const first = await open();
    await fail(first, encrypted("$a", "s1"));
    await fail(first, encrypted("$b", "s2"));
    await first.stop();
    readable.add("s1");
    const second = await open();
    expect(delivered).toEqual(["$a"]);
    expect(second.counts().waiting).toBe(1);
    // The notice is still due at the time planned before the restart.
    await vi.advanceTimersByTimeAsync(60_000);
    expect(notices.map((notice) => notice.eventId)).toEqual(["$b"]);
  });

  it("asks the sender once per missing key, then gives the key's events up for good", async () => {
    const target = await open();
    await fail(target, encrypted("$a", "s1", "@alice:hs", "$root"));
    await vi.advanceTimersByTimeAsync(1_000);
    await fail(target, encrypted("$b", "s1"));
    await fail(target, encrypted("$c", "s1", "@carol:hs"));
    await vi.advanceTimersByTimeAsync(59_000);
    expect(notices).toEqual([expect.objectContaining({ eventId: "$a", threadRoot: "$root" })]);
    await vi.advanceTimersByTimeAsync(1_000);
    // $b shares $a's key and sender: no second notice. $c is another sender's problem.
    expect(notices.map((notice) => notice.eventId)).toEqual(["$a", "$c"]);
    expect(target.counts().waiting).toBe(0);
    // A key arriving after the notice answers nothing: the sender was asked to resend.
    readable.add("s1");
    await target.keysArrived([{ roomId: ROOM, sessionId: "s1" }]);
    expect(delivered).toEqual([]);
    // The same key failing again later (the sender's app still uses it) is not noticed again.
    await fail(target, encrypted("$d", "s1"));
    readable.delete("s1");
    await vi.advanceTimersByTimeAsync(120_000);
    expect(notices.map((notice) => notice.eventId)).toEqual(["$a", "$c"]);
  });

  it("hands on later a message read while the engine could not take it, and never tells its sender the key is missing", async () => {
    const target = await open();
    await fail(target, encrypted("$a"));
    readable.add("s1");
    failDeliveries = 1;
    await target.keysArrived([{ roomId: ROOM, sessionId: "s1" }]);
    expect(delivered).toEqual([]);
    expect(target.counts().waiting).toBe(1);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(delivered).toEqual(["$a"]);
    expect(notices).toEqual([]);
    expect(target.counts().waiting).toBe(0);
  });

  it("reads a message whose key came unnoticed before telling its sender anything", async () => {
    const target = await open();
    await fail(target, encrypted("$a"));
    readable.add("s1");
    await vi.advanceTimersByTimeAsync(60_000);
    expect(delivered).toEqual(["$a"]);
    expect(notices).toEqual([]);
  });

  it("tells the sender at once when their app withholds the key", async () => {
    const target = await open();
    await fail(
      target,
      encrypted("$a"),
      megolmError(0, "The sender has disabled encrypting to unverified devices."),
    );
    await vi.advanceTimersByTimeAsync(0);
    expect(notices).toEqual([
      expect.objectContaining({
        eventId: "$a",
        withheld: "The sender has disabled encrypting to unverified devices.",
      }),
    ]);
  });

  it("retries a notice that could not be posted, a minute later", async () => {
    const target = await open();
    failNotices = 1;
    await fail(target, encrypted("$a"));
    await vi.advanceTimersByTimeAsync(60_000);
    expect(notices).toEqual([]);
    expect(target.counts().waiting).toBe(1);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(notices.map((notice) => notice.eventId)).toEqual(["$a"]);
  });

  it("never keeps a message from a refused device, and says which setting refused it", async () => {
    const target = await open({ verifiedOnly: true });
    await fail(target, encrypted("$a"), UNSIGNED_DEVICE);
    expect(target.counts()).toEqual({ decryptionFailures: { unverified_device: 1 }, waiting: 0 });
    expect(logger.lines.map((line) => line.message)).toContain(
      "refused a Matrix message from a device its owner has not verified (matrix.encryption.trust is verified-only); it is not answered",
    );
  });

  it("stays bounded: past the limit the oldest waiting event is dropped, and the log says so", async () => {
    const target = await open({ maxEvents: 2 });
    await fail(target, encrypted("$a", "s1"));
    await fail(target, encrypted("$b", "s2"));
    await fail(target, encrypted("$c", "s3"));
    expect(target.counts().waiting).toBe(2);
    expect(await kv.get("undecryptable:@bot:hs:event:$a")).toBeUndefined();
    expect(
      logger.lines.find((line) => line.message.startsWith("too many Matrix messages"))?.fields,
    ).toMatchObject({
      eventId: "$a",
    });
  });

  it("keeps the same event once when its batch is handed on again", async () => {
    const target = await open();
    await fail(target, encrypted("$a"));
    await fail(target, encrypted("$a"));
    expect(target.counts().waiting).toBe(1);
  });

  it("fails the caller when the store cannot keep the event, so the sync batch is handled again", async () => {
    const target = await open();
    kv.set = async () => {
      throw new Error("store unreachable");
    };
    await expect(fail(target, encrypted("$a"))).rejects.toThrow("store unreachable");
    // Later work still runs.
    kv.set = memoryKeyValue().set;
    await expect(target.keysArrived([])).resolves.toBeUndefined();
  });
});
