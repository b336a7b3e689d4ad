/**
 * A turn waiting on something outside this process holds no CPU slot, whatever it waits on: the
 * platform taking a post (or refusing it with a retry-after), the typing indicator going off, a
 * streamed answer's end waiting out the platform's pace, a file downloading, a transcription. With one slot, a second conversation is answered while the
 * first one waits — each test fails if that wait keeps the slot.
 */
import { afterEach, describe, expect, it } from "vitest";
import { AttachmentReader } from "../attachments/attachment-reader.ts";
import { attachmentsConfigSchema } from "../attachments/attachments-config.ts";
import { MemoryBlobStore } from "../attachments/blobs/memory-blob-store.ts";
import { oggVoiceNote } from "../attachments/testing/sample-files.ts";
import type { AttachmentBody, InboundAttachment } from "../conversation/files.ts";
import type { InboundMessage, OutboundMessage, PostedMessage } from "../conversation/messages.ts";
import type { ConversationRef } from "../conversation/ref.ts";
import { Deliverer } from "../delivery/deliverer.ts";
import { Outbox } from "../outbox/outbox.ts";
import { createMemoryLogger, silentLogger } from "../runtime/logger.ts";
import { openStore } from "../store/index.ts";
import { MemoryAtomicStore } from "../store/memory/memory-atomic-store.ts";
import { MemoryStore } from "../store/memory/memory-store.ts";
import { gate } from "../testing/gate.ts";
import { RecordingAdapter } from "../testing/recording-adapter.ts";
import { scriptedResponder, streamedAnswer } from "../testing/responders.ts";
import { waitFor } from "../testing/wait.ts";
import { ConversationIndex } from "./conversation-index.ts";
import { Engine } from "./engine.ts";
import { ConversationSerializer } from "./serializer.ts";

let serializer: ConversationSerializer | undefined;
let engine: Engine | undefined;
afterEach(async () => {
  await serializer?.stop();
  await engine?.stop();
  serializer = undefined;
  engine = undefined;
});

/** One CPU slot, so a turn that kept it while waiting would hold every other conversation back. */
function oneSlot(work: (key: string, signal: AbortSignal) => Promise<void>): ConversationSerializer {
  serializer = new ConversationSerializer({
    atomic: new MemoryAtomicStore(),
    logger: createMemoryLogger(),
    lockTtlMs: 5_000,
    policy: "queue",
    maxTurnMs: 600_000,
    stopRequested: async () => false,
    maxConcurrentTurns: 10,
    cpuSlots: { initial: 1, min: 1, max: 1, targetDelayMs: 1_000 },
    work: (key, _items, signal) => work(key, signal),
  });
  return serializer;
}

const where = (key: string): ConversationRef => ({ platform: "test", path: [key] });

/** Starts `first`, waits until it waits outside, then asks that `second` is answered meanwhile. */
async function answeredMeanwhile(
  turns: ConversationSerializer,
  first: string,
  firstIsWaiting: () => boolean,
  answered: () => readonly string[],
): Promise<void> {
  await turns.submit(first, "a", 1);
  await waitFor(`${first} to wait outside the process`, firstIsWaiting);
  await turns.submit("other", "b", 1);
  await waitFor("the other conversation's answer", () => answered().includes("other"));
  expect(answered()).not.toContain(first);
  expect(turns.health()).toMatchObject({ runningTurns: 1, cpuSlots: { limit: 1, inUse: 0 } });
}

/** A platform whose posts to one conversation hang, or are refused with a retry-after, until told. */
class SlowPlatform extends RecordingAdapter {
  readonly released = gate();
  readonly waiting = new Set<string>();
  readonly behaviour: "hang" | "rate-limit";
  constructor(behaviour: "hang" | "rate-limit") {
    super();
    this.behaviour = behaviour;
  }

  override async post(message: OutboundMessage): Promise<PostedMessage> {
    const key = message.conversation.path[0] ?? "";
    if (key !== "other") {
      this.waiting.add(key);
      if (this.behaviour === "rate-limit") throw Object.assign(new Error("ratelimited"), { retryAfter: 60 });
      await this.released.opened;
    }
    return super.post(message);
  }

  override async setTyping(conversation: ConversationRef, active: boolean): Promise<void> {
    await super.setTyping(conversation, active);
    const key = conversation.path[0] ?? "";
    if (!active && key !== "other") {
      this.waiting.add(key);
      await this.released.opened;
    }
  }
}

describe("waits outside the process hold no CPU slot", () => {
  it("a post the platform has not answered yet", async () => {
    const platform = new SlowPlatform("hang");
    const store = new MemoryStore();
    const outbox = new Outbox({
      store,
      deliverer: new Deliverer([platform], new ConversationIndex(store)),
      logger: silentLogger,
    });
    const turns = oneSlot(async (key, signal) => {
      const work = await outbox.open(`work-${key}`, signal);
      await work.deliver({ conversation: where(key), text: `answer for ${key}` }, { answer: true });
    });
    const answered = () => platform.posts.map((post) => post.conversation.path[0] ?? "");
    await answeredMeanwhile(turns, "stuck", () => platform.waiting.has("stuck"), answered);
    platform.released.open();
    await turns.idle();
    expect(answered()).toEqual(["other", "stuck"]);
  });

  it("a post the platform refused with a retry-after of a minute", async () => {
    const platform = new SlowPlatform("rate-limit");
    const store = new MemoryStore();
    const outbox = new Outbox({
      store,
      deliverer: new Deliverer([platform], new ConversationIndex(store)),
      logger: silentLogger,
      retry: { attempts: 3, baseDelayMs: 10, maxDelayMs: 120_000 },
    });
    const turns = oneSlot(async (key, signal) => {
      const work = await outbox.open(`work-${key}`, signal);
      await work.deliver({ conversation: where(key), text: `answer for ${key}` }, { answer: true });
    });
    const answered = () => platform.posts.map((post) => post.conversation.path[0] ?? "");
    // The limited turn is still in its minute's wait when the other one is answered; stopping
    // cancels that wait.
    await answeredMeanwhile(turns, "limited", () => platform.waiting.has("limited"), answered);
  });

  it("the typing indicator being taken back", async () => {
    const platform = new SlowPlatform("hang");
    const deliverer = new Deliverer([platform], new ConversationIndex(new MemoryStore()), {
      typingDelayMs: 0,
    });
    const done: string[] = [];
    const turns = oneSlot(async (key) => {
      await deliverer.whileTyping(
        where(key),
        async () => undefined,
        () => undefined,
      );
      done.push(key);
    });
    await answeredMeanwhile(
      turns,
      "typing",
      () => platform.waiting.has("typing"),
      () => done,
    );
    platform.released.open();
    await turns.idle();
    expect(done).toEqual(["other", "typing"]);
  });

  it("a streamed answer's last edit waiting out the platform's pace", async () => {
    // A platform that allows one change to a thread every 4 s: after the preview, the answer's end
    // waits that long before it may edit the preview into the answer (and stopping waits it out).
    class PacedPlatform extends RecordingAdapter {
      readonly streaming = { editIntervalMs: 4_000, progress: false };
      async edit(): Promise<void> {}
    }
    const platform = new PacedPlatform();
    const streamed = streamedAnswer({ pieces: ["a long ", "streamed ", "answer"], paceMs: 150 });
    engine = new Engine({
      store: await openStore("memory://"),
      adapters: [platform],
      responder: scriptedResponder((turn) =>
        turn.message.conversation.path[0] === "streamed" ? streamed(turn) : `answer to ${turn.text}`,
      ),
      settings: { cpuSlots: { initial: 1, min: 1, max: 1, targetDelayMs: 1_000 } },
    });
    await engine.start();
    const posted = (key: string) => platform.posts.filter((post) => post.conversation.path[0] === key);
    await platform.send("tell me everything", { conversation: where("streamed") });
    await waitFor("the streamed answer's preview", () => posted("streamed").length === 1);
    await waitFor("the streamed turn to wait for the platform's pace without its slot", () => {
      const health = engine!.health();
      return health.runningTurns === 1 && health.cpuSlots.inUse === 0;
    });
    await platform.send("a quick one", { conversation: where("other") });
    await waitFor("the other conversation's answer", () => posted("other").length === 1);
    expect(engine.health().runningTurns).toBe(1);
    await engine.idle();
    expect(posted("streamed")).toHaveLength(1);
  });

  it("a file downloading from the platform, and a voice note being transcribed", async () => {
    const download = gate();
    const transcription = gate();
    const waiting = new Set<string>();
    const reader = new AttachmentReader({
      config: attachmentsConfigSchema.parse({
        transcription: { baseUrl: "http://transcribe.test/v1", model: "whisper-1" },
      }),
      blobs: new MemoryBlobStore(),
      store: new MemoryStore(),
      sourceFor: () => ({
        async open(attachment: InboundAttachment): Promise<AttachmentBody> {
          if (attachment.name === "slow.txt") {
            waiting.add("download");
            await download.opened;
          }
          const bytes = Buffer.from(String(attachment.ref.bytes), "base64");
          return {
            body: (async function* () {
              yield bytes;
            })(),
            declaredSize: bytes.byteLength,
          };
        },
      }),
      logger: silentLogger,
      fetchImpl: (async () => {
        waiting.add("transcription");
        await transcription.opened;
        return new Response(JSON.stringify({ text: "see you on Friday" }));
      }) as unknown as typeof fetch,
    });
    const files: Record<string, InboundAttachment> = {
      downloading: { name: "slow.txt", ref: { bytes: Buffer.from("notes").toString("base64") } },
      transcribing: {
        name: "memo.ogg",
        voice: true,
        ref: { bytes: Buffer.from(oggVoiceNote()).toString("base64") },
      },
    };
    const read: string[] = [];
    const turns = oneSlot(async (key, signal) => {
      const attachment = files[key];
      if (attachment)
        await reader.read([messageWith(key, attachment)], { key, signal, imagesAccepted: false });
      read.push(key);
    });
    await answeredMeanwhile(
      turns,
      "downloading",
      () => waiting.has("download"),
      () => read,
    );
    download.open();
    await waitFor("the download to be read", () => read.includes("downloading"));
    await answeredMeanwhile(
      turns,
      "transcribing",
      () => waiting.has("transcription"),
      () => read.slice(2),
    );
    transcription.open();
    await turns.idle();
    expect(read).toEqual(["other", "downloading", "other", "transcribing"]);
  });
});

function messageWith(key: string, attachment: InboundAttachment): InboundMessage {
  return {
    id: `m-${key}`,
    conversation: where(key),
    author: { id: "u1", isBot: false, isSelf: false },
    text: "what is this?",
    isDirect: true,
    mentionsBot: false,
    isEdit: false,
    sentAt: 0,
    attachments: [attachment],
  };
}
