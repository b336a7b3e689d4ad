/**
 * Exactly once, in one process and across instances sharing a store: what is accepted is queued in
 * the same step that marks it seen, answers are recorded before they are posted, a retried unit of
 * work delivers what it has instead of asking again, and work whose holder died is picked up.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { InboundMessage, OutboundMessage, PostedMessage } from "../conversation/messages.ts";
import type { ConversationRef } from "../conversation/ref.ts";
import { createMemoryLogger } from "../runtime/logger.ts";
import { openStore } from "../store/index.ts";
import type { Store } from "../store/types.ts";
import { RecordingAdapter } from "../testing/recording-adapter.ts";
import { scriptedResponder } from "../testing/responders.ts";
import { waitFor } from "../testing/wait.ts";
import { Engine, type EngineOptions } from "./engine.ts";
import { EngineStoppingError } from "./errors.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const channel: ConversationRef = { platform: "test", path: ["general", "thread-1"] };
const quickRetry = { attempts: 3, baseDelayMs: 5, maxDelayMs: 20 };

/** A platform whose posts can fail, or land and never answer (the process dies before it hears back). */
class UnreliableAdapter extends RecordingAdapter {
  failNext = 0;
  /** Posts that land on the platform but whose response never comes back. */
  swallowNext = 0;
  postAttempts = 0;

  override async post(message: OutboundMessage): Promise<PostedMessage> {
    this.postAttempts += 1;
    if (this.failNext > 0) {
      this.failNext -= 1;
      throw Object.assign(new Error("HTTP 500 from the platform"), { retryAfterMs: 1 });
    }
    const posted = await super.post(message);
    if (this.swallowNext > 0) {
      this.swallowNext -= 1;
      return new Promise<never>(() => {});
    }
    return posted;
  }

  async findPosted(_conversation: ConversationRef, key: string): Promise<PostedMessage | undefined> {
    const post = this.posts.find((candidate) => candidate.idempotencyKey === key);
    return post ? { id: post.id, conversation: post.conversation } : undefined;
  }
}

describe("exactly once", () => {
  let store: Store;
  const engines: Engine[] = [];
  beforeEach(async () => {
    store = await openStore("memory://");
  });
  afterEach(async () => {
    for (const engine of engines.splice(0)) await engine.stop();
    await store.close();
  });
  const start = async (options: Partial<EngineOptions> & Pick<EngineOptions, "responder" | "adapters">) => {
    const engine = new Engine({ store, deliveryRetry: quickRetry, ...options });
    engines.push(engine);
    await engine.start();
    return engine;
  };

  it("delivers an answer recorded before a restart without asking for it again, and finds a post that landed", async () => {
    const adapter = new UnreliableAdapter();
    adapter.swallowNext = 1;
    const first = scriptedResponder(() => "the one answer");
    const dying = await start({ responder: first, adapters: [adapter] });
    await adapter.send("question");
    await waitFor("the answer to land", () => adapter.posts.length === 1 || undefined);
    await dying.stop(); // the post landed; the process never heard back

    const second = scriptedResponder(() => "a second, different answer");
    const restarted = await start({ responder: second, adapters: [adapter] });
    await restarted.idle();
    expect(second.turns).toHaveLength(0);
    expect(adapter.posts.map((post) => post.text)).toEqual(["the one answer"]);
  });

  it("re-posts with the same idempotency key when the platform cannot say whether a post landed", async () => {
    const adapter = new UnreliableAdapter();
    adapter.swallowNext = 1;
    const dying = await start({ responder: scriptedResponder(() => "answer"), adapters: [adapter] });
    await adapter.send("question");
    await waitFor("the post", () => adapter.posts.length === 1 || undefined);
    await dying.stop();

    const blind = new RecordingAdapter(); // no findPosted: the repeat must carry the same key
    const restarted = await start({ responder: scriptedResponder(() => "not asked"), adapters: [blind] });
    await restarted.idle();
    expect(blind.posts.map((post) => post.text)).toEqual(["answer"]);
    expect(blind.posts[0]?.idempotencyKey).toBe(adapter.posts[0]?.idempotencyKey);
  });

  it("retries a failing post with backoff, and gives up visibly when the platform keeps failing", async () => {
    const adapter = new UnreliableAdapter();
    const logger = createMemoryLogger();
    const engine = await start({ responder: scriptedResponder(() => "hello"), adapters: [adapter], logger });
    adapter.failNext = 2;
    await adapter.send("first");
    await engine.idle();
    expect(adapter.posts.map((post) => post.text)).toEqual(["hello"]);
    expect(adapter.postAttempts).toBe(3);

    adapter.failNext = 10;
    const message = await adapter.send("second");
    await engine.idle();
    expect(adapter.posts).toHaveLength(1);
    const key = "test:dm-1";
    expect(message.conversation.path).toEqual(["dm-1"]);
    expect((await engine.outbox.givenUp(key)).map((entry) => entry.reason)).toEqual([
      "HTTP 500 from the platform",
    ]);
    expect(
      logger.lines.some((entry) => entry.level === "error" && /could not be delivered/.test(entry.message)),
    ).toBe(true);
  });

  it("queues a follow-up typed while the first answer in a channel thread is still being written", async () => {
    const adapter = new RecordingAdapter();
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const responder = scriptedResponder(async (turn) => {
      if (turn.text.startsWith("@bot")) await held;
      return `answer to ${turn.text}`;
    });
    const engine = await start({ responder, adapters: [adapter] });
    const group = { isDirect: false, conversation: channel };
    await adapter.send("@bot first question", { ...group, mentionsBot: true });
    await waitFor("the first turn", () => responder.turns.length === 1 || undefined);
    // No mention, nothing posted yet: still part of the conversation the mention started.
    const outcome = await engine.accept(userMessage());
    expect(outcome.accepted).toBe(true);
    release();
    await engine.idle();
    expect(adapter.posts.map((post) => post.text)).toEqual([
      "answer to @bot first question",
      "answer to and one more thing",
    ]);
  });

  it("refuses messages once stopping without marking them seen, so the platform's redelivery is taken later", async () => {
    const adapter = new RecordingAdapter();
    const engine = await start({ responder: scriptedResponder(() => "answered"), adapters: [adapter] });
    await engine.stop();
    const message = userMessage({ isDirect: true, conversation: { platform: "test", path: ["dm-9"] } });
    await expect(engine.accept(message)).rejects.toBeInstanceOf(EngineStoppingError);

    const next = await start({ responder: scriptedResponder(() => "answered"), adapters: [adapter] });
    expect(await next.accept(message)).toMatchObject({ accepted: true });
    await next.idle();
    expect(adapter.posts.map((post) => post.text)).toEqual(["answered"]);
  });

  it("answers work whose holder died, within a lock TTL and without a new message", async () => {
    // The clock is fake: "within a lock TTL" is measured in time the test moves, not in how fast
    // a loaded machine runs.
    vi.useFakeTimers({ toFake: ["Date", "setTimeout", "clearTimeout", "setInterval", "clearInterval"] });
    const own = await openStore("memory://");
    const adapter = new RecordingAdapter();
    const settings = { lockTtlMs: 300, recoveryIntervalMs: 100 };
    let startedAt: number | undefined;
    const engine = new Engine({
      store: own,
      deliveryRetry: quickRetry,
      responder: scriptedResponder(() => {
        startedAt ??= Date.now();
        return "picked up";
      }),
      adapters: [adapter],
      settings,
    });
    try {
      const heldAt = Date.now();
      const dead = await own.atomic.acquireLock("lock:test:dm-1", settings.lockTtlMs);
      expect(dead).not.toBeNull();
      await engine.start();
      await adapter.send("asked while another process held the thread");
      const step = 10;
      while (adapter.posts.length === 0 && Date.now() - heldAt < 10 * settings.lockTtlMs) {
        await vi.advanceTimersByTimeAsync(step);
        // Work that yields to the event loop (intake first, CPU slots) finishes before the clock
        // moves on: only the test moves it, so a slow machine cannot make the pickup look late.
        for (let turn = 0; turn < 20; turn++) await new Promise<void>((resolve) => setImmediate(resolve));
      }
      expect(adapter.posts.map((post) => post.text)).toEqual(["picked up"]);
      const pickedUpAfter = (startedAt ?? Number.POSITIVE_INFINITY) - heldAt;
      // Never while the dead holder's lock was live; within one lock TTL of its expiry (the
      // guarantee: this process polls the lock every 100–150 ms, jittered, half a TTL at most).
      expect(pickedUpAfter).toBeGreaterThanOrEqual(settings.lockTtlMs);
      expect(pickedUpAfter).toBeLessThanOrEqual(2 * settings.lockTtlMs);
      await engine.idle();
    } finally {
      await engine.stop();
      vi.useRealTimers();
      await own.close();
    }
  });

  it("answers in the platform's order, not the order messages reached the queue", async () => {
    const adapter = new RecordingAdapter();
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const responder = scriptedResponder(async (turn) => {
      if (turn.text === "zero") await held;
      return turn.text;
    });
    const engine = await start({ responder, adapters: [adapter] });
    const now = Date.now();
    await adapter.send("zero", { sentAt: now });
    await waitFor("the first turn", () => responder.turns.length === 1 || undefined);
    await adapter.send("three", { sentAt: now + 3 });
    await adapter.send("one", { sentAt: now + 1 });
    await adapter.send("two", { sentAt: now + 2 });
    release();
    await engine.idle();
    expect(adapter.posts.map((post) => post.text)).toEqual(["zero", "one", "two", "three"]);
  });

  it("hands a busy conversation over to another instance that wants it, so turns spread", async () => {
    const adapterA = new RecordingAdapter();
    const adapterB = new RecordingAdapter();
    const ranOn: string[] = [];
    const responderOn = (name: string) =>
      scriptedResponder(async (turn) => {
        ranOn.push(name);
        await sleep(30);
        return turn.text;
      });
    const a = await start({ responder: responderOn("a"), adapters: [adapterA] });
    const b = await start({ responder: responderOn("b"), adapters: [adapterB] });
    // A backlog on one conversation, queued through both instances.
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        (i % 2 === 0 ? adapterA : adapterB).send(`m${i}`, { sentAt: 1_000 + i }),
      ),
    );
    await waitFor("every answer", () =>
      adapterA.posts.length + adapterB.posts.length === 10 ? true : undefined,
    );
    await Promise.all([a.idle(), b.idle()]);
    const all = [...adapterA.posts, ...adapterB.posts].map((post) => post.text);
    expect(all.sort()).toEqual(Array.from({ length: 10 }, (_, i) => `m${i}`).sort());
    expect(ranOn.filter((name) => name === "a").length).toBeGreaterThanOrEqual(3);
    expect(ranOn.filter((name) => name === "b").length).toBeGreaterThanOrEqual(3);
  });

  it("runs no more turns at once than the ceiling; the rest wait, queued", async () => {
    const adapter = new RecordingAdapter();
    let running = 0;
    let most = 0;
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const responder = scriptedResponder(async (turn) => {
      running += 1;
      most = Math.max(most, running);
      // Every turn runs until the test has looked: the first two are still running then.
      await held;
      running -= 1;
      return turn.text;
    });
    const engine = await start({ responder, adapters: [adapter], settings: { maxConcurrentTurns: 2 } });
    await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        adapter.send(`q${i}`, { conversation: { platform: "test", path: [`dm-${i}`] } }),
      ),
    );
    await waitFor("the ceiling's turns to start", () => running === 2 || undefined);
    expect(engine.health().waitingToStart).toBeGreaterThan(0);
    release();
    await engine.idle();
    expect(adapter.posts).toHaveLength(6);
    expect(most).toBe(2);
  });
});

function userMessage(overrides: Partial<InboundMessage> = {}): InboundMessage {
  return {
    id: `late-${Math.random().toString(36).slice(2)}`,
    conversation: channel,
    author: { id: "user-1", isBot: false, isSelf: false },
    text: "and one more thing",
    isDirect: false,
    mentionsBot: false,
    isEdit: false,
    sentAt: Date.now(),
    ...overrides,
  };
}
