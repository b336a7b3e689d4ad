/**
 * A turn's time limit (`maxTurnMs`) cuts a turn that runs too long. An answer already computed and
 * recorded when the limit passes — its delivery still waiting on the platform — is not thrown
 * away with the turn: the work stays queued and the next try delivers the recorded answer, once.
 * Cut again there, it is given up, so the conversation never waits behind it for ever.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { OutboundMessage, PostedMessage } from "../conversation/messages.ts";
import { createMemoryLogger } from "../runtime/logger.ts";
import { openStore } from "../store/index.ts";
import { RecordingAdapter } from "../testing/recording-adapter.ts";
import { scriptedResponder } from "../testing/responders.ts";
import { waitFor } from "../testing/wait.ts";
import { Engine } from "./engine.ts";

let engine: Engine | undefined;
afterEach(async () => {
  await engine?.stop();
  engine = undefined;
});

/** A platform whose posts starting with `hangs` never answer; every other post lands. */
class SomePostsHang extends RecordingAdapter {
  readonly hangs: string;
  attempts = 0;
  constructor(hangs: string) {
    super();
    this.hangs = hangs;
  }

  override async post(message: OutboundMessage): Promise<PostedMessage> {
    if (!message.text.startsWith(this.hangs)) return super.post(message);
    this.attempts += 1;
    return new Promise<never>(() => {});
  }
}

/** Its first post never answers (the platform took it nowhere); every later one lands. */
class FirstPostHangs extends RecordingAdapter {
  attempts = 0;

  override async post(message: OutboundMessage): Promise<PostedMessage> {
    this.attempts += 1;
    if (this.attempts === 1) return new Promise<never>(() => {});
    return super.post(message);
  }
}

/** The engine on `platform` with a short time limit; its log, to read what happened. */
async function startEngine(
  platform: RecordingAdapter,
  responder: ReturnType<typeof scriptedResponder>,
  maxTurnMs: number,
) {
  const logger = createMemoryLogger();
  engine = new Engine({
    store: await openStore("memory://"),
    adapters: [platform],
    responder,
    logger,
    settings: { maxTurnMs },
  });
  await engine.start();
  const started = engine;
  return { logger, idle: () => started.idle() };
}

describe("a turn's time limit", () => {
  it("passing while a recorded answer is being delivered leaves the work queued, and the answer lands once", async () => {
    const platform = new FirstPostHangs();
    const responder = scriptedResponder((turn) => `answer to ${turn.text}`);
    const { logger, idle } = await startEngine(platform, responder, 300);
    await platform.send("what is the status?");
    await waitFor("the recorded answer to be delivered on the next try", () => platform.posts.length === 1);
    await idle();
    expect(platform.posts.map((post) => post.text)).toEqual(["answer to what is the status?"]);
    // The model was asked once: the next try delivered what the first had recorded.
    expect(responder.turns).toHaveLength(1);
    expect(logger.lines.map((line) => line.message)).not.toContain("turn cancelled");
  });

  it("passing while the team still works cuts the turn for good: it is not tried again", async () => {
    const platform = new RecordingAdapter();
    // A team that works until it is told to stop.
    const responder = scriptedResponder(
      (turn) =>
        new Promise<string>((_resolve, reject) =>
          turn.signal.addEventListener("abort", () => reject(turn.signal.reason), { once: true }),
        ),
    );
    const { logger, idle } = await startEngine(platform, responder, 200);
    await platform.send("think about this forever");
    await waitFor("the turn to be cut", () => logger.lines.some((line) => line.message === "turn cancelled"));
    await idle();
    expect(responder.turns).toHaveLength(1);
    expect(platform.posts).toEqual([]);
  });

  it("passing again while the recorded answer is tried again gives it up, and the conversation goes on", async () => {
    const platform = new SomePostsHang("answer to the first");
    const responder = scriptedResponder((turn) => `answer to ${turn.text}`);
    const { logger, idle } = await startEngine(platform, responder, 300);
    const conversation = { platform: "test", path: ["thread"] };
    await platform.send("the first question", { conversation });
    await waitFor("the answer to be given up", () =>
      logger.lines.some(
        (line) => line.message === "an answer could not be delivered; giving up after retries",
      ),
    );
    // Tried by the turn and once more by the next try; then the conversation is free again.
    expect(platform.attempts).toBe(2);
    await platform.send("the second question", { conversation });
    await waitFor("the second answer", () => platform.posts.length === 1);
    await idle();
    expect(platform.posts.map((post) => post.text)).toEqual(["answer to the second question"]);
    expect(responder.turns.map((turn) => turn.text)).toEqual(["the first question", "the second question"]);
    expect(platform.attempts).toBe(2);
  });
});
