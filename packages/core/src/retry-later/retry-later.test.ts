/**
 * Later retries through a real engine on each real store: a scripted team that is "down" (throws
 * what the model retry throws when the provider stays unavailable) or "up", a recording platform
 * that can edit, and a clock the test moves. The firing rounds are run by hand, as the driver or the
 * cluster's sweep runs them.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { InboundMessage, PostedMessage } from "../conversation/messages.ts";
import { encodeConversationKey } from "../conversation/ref.ts";
import { Engine } from "../engine/engine.ts";
import type { Responder, Turn } from "../engine/responder.ts";
import { ModelUnavailableError } from "../models/retry.ts";
import type { RetryLaterSettings } from "../models/spec.ts";
import { silentLogger } from "../runtime/logger.ts";
import { type TestStore, testStoreBackends } from "../store/test-backends.ts";
import type { Store } from "../store/types.ts";
import { RecordingAdapter } from "../testing/recording-adapter.ts";
import { createRetryLater, type RetryLater } from "./create-retry-later.ts";
import { CANCELLED_TEXT, gaveUpText, SUPERSEDED_TEXT } from "./retry-record.ts";

const MINUTE = 60_000;

/** A platform that edits in place, as Slack, Discord and Matrix do. */
class EditingAdapter extends RecordingAdapter {
  readonly edits: { id: string; text: string }[] = [];
  async edit(posted: PostedMessage, text: string): Promise<void> {
    this.edits.push({ id: posted.id, text });
    const post = this.posts.find((candidate) => candidate.id === posted.id);
    if (post) Object.assign(post, { text });
  }
}

/** The team: down (the model stays unavailable through a turn's retries) or up. */
class ScriptedTeam implements Responder {
  up = false;
  readonly asked: string[] = [];
  async respond(turn: Turn) {
    this.asked.push(turn.text);
    if (!this.up) throw new ModelUnavailableError("server_error", 4, new Error("503 Service Unavailable"));
    return { text: `Answer: ${turn.text}` };
  }
}

interface Process {
  readonly engine: Engine;
  readonly retryLater: RetryLater;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe.each(testStoreBackends("retry-later"))("later retries (%s)", (_name, open) => {
  let opened: TestStore;
  let now: number;
  const clock = { now: () => now };
  const adapter = () => new EditingAdapter();

  async function start(
    store: Store,
    platform: EditingAdapter,
    team: ScriptedTeam,
    settings: RetryLaterSettings = { attempts: 3, firstDelaySeconds: 60 },
  ): Promise<Process> {
    const retryLater = createRetryLater({
      store,
      settings,
      responder: () => team,
      clock,
      logger: silentLogger,
    });
    const engine = new Engine({
      store,
      adapters: [platform],
      responder: team,
      continuations: retryLater.continuations({ continue: async () => undefined }),
      laterRetries: retryLater.engine,
    });
    retryLater.bind(engine);
    await engine.start();
    cleanups.push(() => engine.stop());
    return { engine, retryLater };
  }

  async function world(settings?: RetryLaterSettings) {
    opened = await open();
    cleanups.push(() => opened.cleanup());
    cleanups.push(() => opened.store.close());
    now = Date.parse("2026-03-02T09:00:00Z");
    const platform = adapter();
    const team = new ScriptedTeam();
    const bot = await start(opened.store, platform, team, settings);
    /** Moves the clock and runs one firing round, then lets the thread's queue finish. */
    const fireAfter = async (ms: number) => {
      now += ms;
      const { fired } = await bot.retryLater.fireRound();
      await bot.engine.idle();
      return fired;
    };
    const ask = async (text: string) => {
      const message = await platform.send(text);
      await bot.engine.idle();
      return message;
    };
    return { platform, team, bot, fireAfter, ask };
  }

  it("edits the failure into a countdown, counts down again on each failed try, then replaces it with the answer", async () => {
    const { platform, team, fireAfter, ask } = await world();
    await ask("what is our refund policy?");
    expect(platform.posts.map((post) => post.text)).toEqual([
      "The model is not answering — trying again in 60 s. (`/stop` cancels; a new message replaces this one.)",
    ]);
    expect(await fireAfter(MINUTE - 1_000)).toBe(0);
    expect(await fireAfter(1_000)).toBe(1);
    // Still down: the same message now counts down to the second try, twice as far away.
    expect(platform.posts).toHaveLength(1);
    expect(platform.posts[0]?.text).toContain("trying again in 2 min");
    team.up = true;
    expect(await fireAfter(2 * MINUTE)).toBe(1);
    expect(platform.posts.map((post) => post.text)).toEqual(["Answer: what is our refund policy?"]);
    expect(team.asked).toHaveLength(3);
    // Answered: nothing is left to fire, however long one waits.
    expect(await fireAfter(60 * MINUTE)).toBe(0);
    expect(team.asked).toHaveLength(3);
  });

  it("gives up after its tries and says so in the same message", async () => {
    const { platform, team, fireAfter, ask } = await world({ attempts: 2, firstDelaySeconds: 10 });
    await ask("hello");
    expect(await fireAfter(10_000)).toBe(1);
    expect(await fireAfter(20_000)).toBe(1);
    expect(platform.posts.map((post) => post.text)).toEqual([gaveUpText(2)]);
    expect(await fireAfter(60 * MINUTE)).toBe(0);
    expect(team.asked).toHaveLength(3);
  });

  it("/stop cancels the waiting retry and its countdown says so", async () => {
    const { platform, team, fireAfter, ask } = await world();
    await ask("hello");
    await platform.send("/stop");
    expect(platform.posts.map((post) => post.text)).toEqual([
      CANCELLED_TEXT,
      "Stopped: the answer that was waiting for the model will not be tried again.",
    ]);
    team.up = true;
    expect(await fireAfter(60 * MINUTE)).toBe(0);
    expect(team.asked).toEqual(["hello"]);
  });

  it("a newer message supersedes the waiting one: only the newer is answered", async () => {
    const { platform, team, fireAfter, ask } = await world();
    await ask("first question");
    team.up = true;
    await ask("second question");
    expect(platform.posts.map((post) => post.text)).toEqual([SUPERSEDED_TEXT, "Answer: second question"]);
    expect(await fireAfter(60 * MINUTE)).toBe(0);
    expect(team.asked).toEqual(["first question", "second question"]);
  });

  it("a newer message that fails too leaves one retry in the thread: the newer one", async () => {
    const { platform, team, fireAfter, ask } = await world();
    await ask("first question");
    await ask("second question");
    expect(platform.posts[0]?.text).toBe(SUPERSEDED_TEXT);
    team.up = true;
    expect(await fireAfter(MINUTE)).toBe(1);
    expect(platform.posts.map((post) => post.text)).toEqual([SUPERSEDED_TEXT, "Answer: second question"]);
  });

  it("a turn killed between recording its retry and posting the countdown, then answered when it ran again, is not answered twice", async () => {
    const { platform, team, bot, fireAfter } = await world();
    const conversation = { platform: "test", path: ["dm-1"] };
    const message: InboundMessage = {
      id: "user-crash",
      conversation,
      author: { id: "user-1", displayName: "User One", isBot: false, isSelf: false },
      text: "hello",
      isDirect: true,
      mentionsBot: false,
      isEdit: false,
      sentAt: now,
    };
    const turn: Turn = {
      key: encodeConversationKey(conversation),
      conversation,
      message,
      text: "hello",
      signal: new AbortController().signal,
      workId: "m:test:user-crash",
    };
    const unavailable = new ModelUnavailableError("server_error", 4, new Error("503"));
    expect(await bot.retryLater.engine.planned(turn, [message], unavailable)).toContain("trying again in");
    // The process dies here; the same work runs again after the restart and the model answers it.
    const outbox = await bot.engine.outbox.open(turn.workId);
    await outbox.deliver({ conversation, text: "Answer: hello" }, { answer: true });
    team.up = true;
    expect(await fireAfter(MINUTE)).toBe(1);
    expect(team.asked).toEqual([]);
    expect(platform.posts.map((post) => post.text)).toEqual(["Answer: hello"]);
    expect(await fireAfter(60 * MINUTE)).toBe(0);
  });

  it("a second process on the same store fires each try once, and the one waiting before a restart is answered once", async () => {
    const { platform, team, bot, ask } = await world();
    await ask("hello");
    await bot.engine.stop();
    // A new process (and a third one firing at the same moment) on the same store.
    const restarted = await start(opened.store, platform, team);
    const other = await start(opened.store, adapter(), team);
    team.up = true;
    now += MINUTE;
    const rounds = await Promise.all([restarted.retryLater.fireRound(), other.retryLater.fireRound()]);
    expect(rounds[0].fired + rounds[1].fired).toBe(1);
    await restarted.engine.idle();
    await other.engine.idle();
    expect(platform.posts.map((post) => post.text)).toEqual(["Answer: hello"]);
    expect(team.asked).toEqual(["hello", "hello"]);
  });
});
