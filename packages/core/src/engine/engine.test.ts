import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { UserFacingError } from "../runtime/errors.ts";
import { createMemoryLogger } from "../runtime/logger.ts";
import { openStore } from "../store/index.ts";
import type { Store } from "../store/types.ts";
import { RecordingAdapter } from "../testing/recording-adapter.ts";
import { scriptedResponder } from "../testing/responders.ts";
import { waitFor } from "../testing/wait.ts";
import { Engine, type EngineOptions } from "./engine.ts";
import type { Turn } from "./responder.ts";

const untilAborted = (turn: Turn) =>
  new Promise<never>((_resolve, reject) =>
    turn.signal.addEventListener("abort", () => reject(turn.signal.reason)),
  );
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("Engine", () => {
  let store: Store;
  let adapter: RecordingAdapter;
  const engines: Engine[] = [];
  beforeEach(async () => {
    store = await openStore("memory://");
    adapter = new RecordingAdapter();
  });
  afterEach(async () => {
    for (const engine of engines.splice(0)) await engine.stop();
    await store.close();
  });
  const start = async (options: Partial<EngineOptions> & Pick<EngineOptions, "responder">) => {
    const engine = new Engine({ store, adapters: [adapter], ...options });
    engines.push(engine);
    await engine.start();
    return engine;
  };

  it("runs one turn at a time per conversation and answers in arrival order", async () => {
    let running = 0;
    let overlapped = false;
    const responder = scriptedResponder(async (turn) => {
      running += 1;
      overlapped ||= running > 1;
      await sleep(20);
      running -= 1;
      return `answer to ${turn.text}`;
    });
    const engine = await start({ responder });
    await Promise.all(["one", "two", "three"].map((text) => adapter.send(text)));
    await engine.idle();
    expect(overlapped).toBe(false);
    expect(adapter.posts.map((post) => post.text)).toEqual([
      "answer to one",
      "answer to two",
      "answer to three",
    ]);
    expect(adapter.posts.every((post, i) => post.replyTo === responder.turns[i]?.message.id)).toBe(true);
  });

  it("serializes a conversation across instances: one turn at a time, in order, whichever instance runs it", async () => {
    let running = 0;
    let overlapped = false;
    const answering = (name: string) =>
      scriptedResponder(async (turn) => {
        running += 1;
        overlapped ||= running > 1;
        await sleep(name === "A" ? 150 : 10);
        running -= 1;
        return `${name} answers ${turn.text}`;
      });
    const slow = answering("A");
    const engineA = await start({ responder: slow });
    const adapterB = new RecordingAdapter();
    const engineB = new Engine({ store, adapters: [adapterB], responder: answering("B") });
    engines.push(engineB);
    await engineB.start();
    await adapter.send("first");
    await waitFor("instance A's turn", () => slow.turns.length === 1);
    await adapterB.send("second");
    await engineB.idle();
    await engineA.idle();
    await waitFor("both answers", () => adapter.posts.length + adapterB.posts.length === 2);
    const answers = [...adapter.posts, ...adapterB.posts].map((p) => p.text);
    expect(answers[0]).toBe("A answers first");
    expect(answers[1]).toMatch(/^[AB] answers second$/);
    expect(overlapped).toBe(false);
  });

  it("runs different conversations side by side", async () => {
    let running = 0;
    let peak = 0;
    let allStarted: () => void = () => {};
    const together = new Promise<void>((resolve) => {
      allStarted = resolve;
    });
    const responder = scriptedResponder(async () => {
      running += 1;
      peak = Math.max(peak, running);
      // Each turn waits for the other two: run one after another, they would wait for ever.
      if (running === 3) allStarted();
      await together;
      running -= 1;
      return "ok";
    });
    const engine = await start({ responder });
    await Promise.all(
      ["a", "b", "c"].map((c) => adapter.send("hi", { conversation: { platform: "test", path: [c] } })),
    );
    await engine.idle();
    expect(peak).toBe(3);
  });

  it("keeps the conversation lock through a turn longer than the lock's TTL (heartbeat), then frees it", async () => {
    // The clock is fake: the heartbeat can never be late, however loaded the machine.
    vi.useFakeTimers({ toFake: ["Date", "setTimeout", "clearTimeout", "setInterval", "clearInterval"] });
    const own = await openStore("memory://");
    let finish: () => void = () => {};
    const slow = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const engine = new Engine({
      store: own,
      adapters: [adapter],
      responder: scriptedResponder(async () => {
        await slow;
        return "slow answer";
      }),
      settings: { lockTtlMs: 120 },
    });
    try {
      await engine.start();
      await adapter.send("take your time");
      // Work that yields to the event loop (intake first, CPU slots) finishes before the clock moves
      // on: only the test moves it, so a slow machine cannot make a renewal late.
      const tick = async () => {
        await vi.advanceTimersByTimeAsync(10);
        for (let turn = 0; turn < 20; turn++) await new Promise<void>((resolve) => setImmediate(resolve));
      };
      // Four TTLs into the turn, nobody else can take the lock.
      for (let elapsed = 0; elapsed < 480; elapsed += 10) await tick();
      expect(await own.atomic.acquireLock("lock:test:dm-1", 1_000)).toBeNull();
      finish();
      for (let step = 0; step < 100 && adapter.posts.length === 0; step++) await tick();
      await engine.idle();
      expect(adapter.posts.map((p) => p.text)).toEqual(["slow answer"]);
      expect(await own.atomic.acquireLock("lock:test:dm-1", 1_000)).not.toBeNull();
    } finally {
      await engine.stop();
      vi.useRealTimers();
      await own.close();
    }
  });

  it("/stop cancels the running turn without an error message, and the next message is answered", async () => {
    const responder = scriptedResponder((turn) =>
      turn.text === "forever" ? untilAborted(turn) : "back to work",
    );
    const engine = await start({ responder });
    await adapter.send("forever");
    await waitFor("the turn to start", () => responder.turns.length === 1);
    await adapter.send("/stop");
    await engine.idle();
    await adapter.send("next");
    await engine.idle();
    expect(adapter.posts.map((p) => p.text)).toEqual(["Stopped the current answer.", "back to work"]);
  });

  it("/stop with nothing running says so", async () => {
    await start({ responder: scriptedResponder(() => "x") });
    await adapter.send("/stop");
    expect(adapter.posts.map((p) => p.text)).toEqual(["Nothing is running in this conversation."]);
  });

  it("/stop's reply goes through the outbox: a refused post is retried, and recorded for a restart", async () => {
    let refuse = 1;
    const flaky = new (class extends RecordingAdapter {
      override async post(message: Parameters<RecordingAdapter["post"]>[0]) {
        if (refuse-- > 0) throw Object.assign(new Error("HTTP 500"), { retryAfterMs: 0 });
        return super.post(message);
      }
    })();
    const engine = new Engine({
      store,
      adapters: [flaky],
      responder: scriptedResponder(() => "x"),
      deliveryRetry: { attempts: 3, baseDelayMs: 0, maxDelayMs: 0 },
    });
    engines.push(engine);
    await engine.start();
    const stop = await flaky.send("/stop");
    expect(flaky.posts.map((p) => [p.text, p.replyTo])).toEqual([
      ["Nothing is running in this conversation.", stop.id],
    ]);
    expect(await engine.notices.pendingCount()).toBe(0);
    // The record a restart would find: posted, so it is never posted again.
    const recorded = await store
      .namespace<{ deliveries: { posted: string[] }[] }>("outbox")
      .get(`notice:stop:test:${stop.id}`);
    expect(recorded?.deliveries[0]?.posted).toEqual([flaky.posts[0]?.id]);
  });

  it("turns a failure into one short sentence for the user and the detail for the log", async () => {
    const logger = createMemoryLogger();
    const responder = scriptedResponder((turn) => {
      if (turn.text === "known") throw new UserFacingError("The billing system is down; try again later.");
      throw new Error("database exploded at row 7");
    });
    const engine = await start({ responder, logger });
    await adapter.send("unknown");
    await adapter.send("known");
    await engine.idle();
    const [generic, known] = adapter.posts.map((p) => p.text);
    const reference = /reference ([0-9a-f]{6})/.exec(generic ?? "")?.[1];
    expect(generic).toMatch(/^Sorry, something went wrong while answering \(reference [0-9a-f]{6}\)\.$/);
    expect(known).toBe("The billing system is down; try again later.");
    const logged = logger.lines.find(
      (line) => line.message === "turn failed" && line.fields.reference === reference,
    );
    expect(String(logged?.fields.error)).toContain("database exploded at row 7");
  });

  it("drops a redelivered message and ignores edits, own and other bots' messages", async () => {
    const engine = await start({ responder: scriptedResponder((turn) => `echo ${turn.text}`) });
    const first = await adapter.send("once");
    await adapter.send("once", { id: first.id });
    await adapter.send("edited", { isEdit: true });
    await adapter.send("mine", { author: { id: "bot", isBot: true, isSelf: true } });
    await adapter.send("theirs", { author: { id: "b2", isBot: true, isSelf: false } });
    await engine.idle();
    expect(adapter.posts.map((p) => p.text)).toEqual(["echo once"]);
  });

  it("gates group messages: mention, reply to the bot, or a conversation the bot is in", async () => {
    const engine = await start({ responder: scriptedResponder((turn) => `echo ${turn.text}`) });
    const channel = { platform: "test", path: ["general"] };
    const thread = { platform: "test", path: ["general", "root-1"] };
    await adapter.send("chatter", { conversation: channel, isDirect: false });
    await adapter.send("hey bot", { conversation: thread, isDirect: false, mentionsBot: true });
    await engine.idle();
    await adapter.send("follow-up in thread", { conversation: thread, isDirect: false });
    await engine.idle();
    const botMessage = adapter.posts[0]?.id;
    await adapter.send("replying outside the thread", {
      conversation: channel,
      isDirect: false,
      replyTo: botMessage,
    });
    await engine.idle();
    expect(adapter.posts.map((p) => [p.text, p.conversation.path.join("/")])).toEqual([
      ["echo hey bot", "general/root-1"],
      ["echo follow-up in thread", "general/root-1"],
      ["echo replying outside the thread", "general/root-1"],
    ]);
  });

  it("collects messages that arrive mid-turn into one turn under the collect policy", async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const responder = scriptedResponder(async (turn) => {
      // The first turn runs until both follow-ups have arrived.
      if (turn.text === "first") await held;
      return `got: ${turn.text.replaceAll("\n\n", " + ")}`;
    });
    const engine = await start({ responder, settings: { midRunPolicy: "collect" } });
    await adapter.send("first");
    await waitFor("the first turn", () => responder.turns.length === 1);
    await adapter.send("second");
    await adapter.send("third");
    release();
    await engine.idle();
    expect(adapter.posts.map((p) => p.text)).toEqual(["got: first", "got: second + third"]);
  });

  it("a collected turn cancelled by shutdown keeps every message it held; the next start answers them", async () => {
    const responder = scriptedResponder(async (turn) => {
      if (turn.text === "first") {
        await waitFor(
          "two more messages queued",
          async () => (await store.atomic.queueLength("queue:test:dm-1")) === 3,
        );
        return "got: first";
      }
      return untilAborted(turn);
    });
    const first = await start({ responder, settings: { midRunPolicy: "collect" } });
    await adapter.send("first");
    await waitFor("the first turn", () => responder.turns.length === 1);
    await adapter.send("second");
    await adapter.send("third");
    await waitFor("the collected turn", () => responder.turns.length === 2);
    await first.stop();
    engines.splice(engines.indexOf(first), 1);
    expect(adapter.posts.map((p) => p.text)).toEqual(["got: first"]);

    const second = await start({
      responder: scriptedResponder((turn) => `got: ${turn.text.replaceAll("\n\n", " + ")}`),
      settings: { midRunPolicy: "collect" },
    });
    await waitFor("the collected messages to be answered", () => adapter.posts.length === 2);
    await second.idle();
    expect(adapter.posts[1]?.text).toBe("got: second + third");
  });

  it("a turn cancelled by shutdown stays queued and is answered by the next start", async () => {
    const first = await start({ responder: scriptedResponder((turn) => untilAborted(turn)) });
    await adapter.send("answer me eventually");
    await waitFor("the turn to start", async () => (await store.atomic.queueLength("queue:test:dm-1")) === 1);
    await sleep(20);
    await first.stop();
    engines.splice(engines.indexOf(first), 1);
    expect(adapter.posts).toEqual([]);

    const second = await start({ responder: scriptedResponder((turn) => `late answer to ${turn.text}`) });
    await waitFor("the queued message to be answered", () => adapter.posts.length === 1);
    await second.idle();
    expect(adapter.posts[0]?.text).toBe("late answer to answer me eventually");
  });
});
