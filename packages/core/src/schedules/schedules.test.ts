import { afterEach, describe, expect, it, vi } from "vitest";
import type { InboundMessage } from "../conversation/messages.ts";
import { decodeConversationKey } from "../conversation/ref.ts";
import type { Continuation, ContinuationWork } from "../engine/responder.ts";
import type { InitiatedRun } from "../runs/tracked-team.ts";
import { silentLogger } from "../runtime/logger.ts";
import type { RunSummary } from "../steps/run-step.ts";
import { openStore } from "../store/open-store.ts";
import type { Store } from "../store/types.ts";
import { createSchedules, type Schedules } from "./create-schedules.ts";
import type { DigestSources } from "./digest-material.ts";
import type { FireOutcome } from "./schedule-record.ts";
import { type SchedulesConfigInput, schedulesConfigSchema } from "./schedules-config.ts";

/** A thread born in a channel thread (a reply to someone's message in it). */
const HOME = "slack:T1:C1:1741593600.000100";
const MINUTE = 60_000;
/** Monday 10 March 2025, 08:00 UTC (09:00 in Berlin). */
const MONDAY = Date.parse("2025-03-10T08:00:00Z");

interface Queued {
  readonly key: string;
  readonly continuation: Continuation;
}

interface World {
  readonly schedules: Schedules;
  readonly store: Store;
  readonly queued: Queued[];
  readonly runs: InitiatedRun[];
  readonly posts: { key: string; text: string; conversation: string; replyTo?: string }[];
  readonly outcomes: FireOutcome[];
  readonly clock: { now: () => number; set(at: number): void; advance(ms: number): void };
  /** The schedule tool as an agent calls it. */
  ask(
    args: Record<string, unknown>,
    run?: { userId?: string; callId?: string; key?: string },
  ): Promise<string>;
  /** Runs every queued continuation as its thread would (the outbox: `failPosts` refuses posts). */
  runQueued(options?: { failPosts?: string }): Promise<void>;
  command(text: string, userId?: string, key?: string): Promise<string>;
  /** A new process on the same store (after a crash). */
  restart(config?: SchedulesConfigInput): Promise<World>;
}

const opened: Store[] = [];
const started: Schedules[] = [];
afterEach(async () => {
  for (const schedules of started.splice(0)) await schedules.stop();
  for (const store of opened.splice(0)) await store.close();
  vi.useRealTimers();
});

async function world(
  config: SchedulesConfigInput = {},
  shared?: { store: Store; clock: World["clock"]; queued: Queued[]; seen: Set<string> },
  digests: DigestSources = {},
  ownClock?: World["clock"],
  refusal?: (userId: string, key: string) => Promise<string | undefined>,
): Promise<World> {
  const store = shared?.store ?? (await openStore("memory:", { logger: silentLogger }));
  if (!shared) opened.push(store);
  let now = MONDAY;
  const clock = shared?.clock ??
    ownClock ?? {
      now: () => now,
      set: (at: number) => {
        now = at;
      },
      advance: (ms: number) => {
        now += ms;
      },
    };
  const queued = shared?.queued ?? [];
  const seen = shared?.seen ?? new Set<string>();
  const runs: InitiatedRun[] = [];
  const posts: World["posts"] = [];
  const outcomes: FireOutcome[] = [];
  const parsed = schedulesConfigSchema.parse(config);
  const schedules = createSchedules({
    store,
    config: parsed,
    defaultTimeZone: "UTC",
    admins: ["U-admin"],
    zoneOf: async (_platform, userId) => (userId === "U-ny" ? "America/New_York" : "Europe/Berlin"),
    placeFor: (conversation, startedBy) => {
      // As Slack: a thread started by a top-level message posts new messages in its channel.
      const [team = "", channel = "", thread] = conversation.path;
      const channelRef = { platform: conversation.platform, path: [team, channel] };
      return { post: startedBy === `${channel}:${thread}` ? channelRef : conversation, channel: channelRef };
    },
    originOf: async (requestId) => ({
      messageId: requestId === "req-top" ? "C1:1741593600.000100" : "C1:1741593700.000200",
    }),
    runner: () => ({
      async runInitiated(run) {
        runs.push(run);
        return {
          text: `Reminder: ${run.text.split("\n").at(-1)}`,
          agent: "supervisor",
          requestId: `req-${runs.length}`,
          runId: `run-${runs.length}`,
        };
      },
    }),
    digests,
    ...(refusal ? { refusal } : {}),
    observer: { finished: (_record, outcome) => outcomes.push(outcome) },
    clock,
    logger: silentLogger,
  });
  started.push(schedules);
  schedules.bind({
    async enqueueContinuation(key, continuation) {
      if (continuation.id && seen.has(continuation.id)) return false;
      if (continuation.id) seen.add(continuation.id);
      queued.push({ key, continuation });
      return true;
    },
  });
  const [tool] = schedules.toolsFor("supervisor");
  const self: World = {
    schedules,
    store,
    queued,
    runs,
    posts,
    outcomes,
    clock,
    async ask(args, run = {}) {
      if (!tool) throw new Error("no schedule tool");
      return String(
        await tool.invoke(args, {
          configurable: {
            thread_id: run.key ?? HOME,
            user_id: run.userId ?? "U-alice",
            request_id: "req-thread",
            run_id: "run-1",
            tool_call_id: run.callId ?? "call-1",
          },
        }),
      );
    },
    async runQueued(options = {}) {
      const handler = schedules.continuations({
        continue: async () => {
          throw new Error("not a schedule's continuation");
        },
      });
      for (const { key, continuation } of queued.splice(0)) {
        const work: ContinuationWork = {
          key,
          continuation,
          signal: new AbortController().signal,
          workId: `c:${continuation.id}`,
          commandPrefix: "/",
          async deliver(delivery) {
            if (options.failPosts) return { delivered: false, failed: options.failPosts };
            posts.push({
              key,
              text: delivery.text,
              conversation: delivery.conversation.path.join(":"),
              ...(delivery.replyTo ? { replyTo: delivery.replyTo } : {}),
            });
            return { delivered: true };
          },
        };
        await handler.continue(work);
      }
    },
    async command(text, userId = "U-alice", key = HOME) {
      const [name = "", ...rest] = text.split(" ");
      const command = schedules.commands.find((candidate) => candidate.name === name);
      if (!command) throw new Error(`no command ${name}`);
      const message: InboundMessage = {
        id: "m1",
        conversation: decodeConversationKey(key),
        author: { id: userId, isBot: false, isSelf: false },
        text,
        isDirect: false,
        mentionsBot: true,
        isEdit: false,
        sentAt: clock.now(),
      };
      const result = await command.run({
        key,
        conversation: message.conversation,
        message,
        args: rest.join(" "),
        prefix: "/",
      });
      return result.reply ?? "";
    },
    restart: (next = config) => world(next, { store, clock, queued, seen }, digests),
  };
  return self;
}

const idIn = (sentence: string) => /S-[A-Z0-9]{6}/.exec(sentence)?.[0] ?? "";

describe("a reminder made by an agent", () => {
  it("confirms with the next fire in the person's zone, fires once at its time, and posts into its thread", async () => {
    const w = await world();
    const made = await w.ask({
      title: "Send the invoice",
      instructions: "Remind the person to send the invoice.",
      at: "2025-03-11T09:00",
    });
    expect(made).toMatch(
      /^Scheduled S-[A-Z0-9]{6} "Send the invoice": once, on Tue 11 Mar 2025, 09:00 \(Europe\/Berlin\)\. Pause or cancel it with \/schedule pause S-/,
    );
    const id = idIn(made);
    // The same tool call again (its run repeated after a crash) finds the same schedule.
    expect(idIn(await w.ask({ title: "Send the invoice", instructions: "x", at: "2025-03-11T09:00" }))).toBe(
      id,
    );
    expect(await w.schedules.store.inHome(HOME)).toHaveLength(1);

    w.clock.set(Date.parse("2025-03-11T07:59:59Z"));
    expect((await w.schedules.fireRound()).fired).toBe(0);
    w.clock.set(Date.parse("2025-03-11T08:00:00.200Z"));
    expect((await w.schedules.fireRound()).fired).toBe(1);
    expect((await w.schedules.fireRound()).fired).toBe(0);
    expect(w.queued.map((q) => [q.key, q.continuation.id, q.continuation.type])).toEqual([
      [HOME, `schedule:${id}:${Date.parse("2025-03-11T08:00:00Z")}`, "schedule_fired"],
    ]);

    await w.runQueued();
    expect(w.runs).toHaveLength(1);
    expect(w.runs[0]).toMatchObject({
      key: HOME,
      userId: "U-alice",
      trigger: "schedule",
      originId: `schedule:${id}:${Date.parse("2025-03-11T08:00:00Z")}`,
    });
    expect(w.runs[0]?.text).toContain(`(Scheduled run of schedule ${id}`);
    expect(w.runs[0]?.text).toContain("It was due at Tue 11 Mar 2025, 09:00 (Europe/Berlin).");
    expect(w.runs[0]?.text).not.toContain("late");
    // Made inside a thread: the post goes into that thread, answering the message that asked.
    expect(w.posts).toEqual([
      {
        key: HOME,
        text: "Reminder: Remind the person to send the invoice.",
        conversation: "T1:C1:1741593600.000100",
        replyTo: "C1:1741593700.000200",
      },
    ]);
    expect(w.outcomes).toEqual(["posted"]);
    const record = await w.schedules.store.get(id);
    expect(record).toMatchObject({ status: "done", fireCount: 1 });
    expect(await w.schedules.store.fires(id)).toMatchObject([
      { outcome: "posted", requestId: "req-1", runId: "run-1" },
    ]);
  });

  it("made by a top-level message in a channel, it posts a new message in the channel", async () => {
    const w = await world();
    const top = "slack:T1:C1:1741593600.000100";
    const tool = w.schedules.toolsFor("supervisor")[0];
    const made = String(
      await tool?.invoke(
        { title: "Standup", instructions: "Ask for standup notes.", cron: "30 9 * * 1-5" },
        {
          configurable: {
            thread_id: top,
            user_id: "U-alice",
            request_id: "req-top",
            run_id: "r",
            tool_call_id: "c",
          },
        },
      ),
    );
    const record = await w.schedules.store.get(idIn(made));
    expect(record?.home).toEqual({ key: top, post: { platform: "slack", path: ["T1", "C1"] } });
  });

  it("refuses what it cannot use, with the reason and an example", async () => {
    const w = await world({ maxPerUser: 2 });
    expect(await w.ask({ title: "x", instructions: "y", at: "next tuesday" })).toBe(
      'Not scheduled: I could not read "next tuesday" as a date and time. Write it as year-month-day and 24-hour time, like "2025-03-10T09:00".',
    );
    expect(await w.ask({ title: "x", instructions: "y", at: "2025-03-10T08:59" })).toMatch(
      /^Not scheduled: Mon 10 Mar 2025, 08:59 \(Europe\/Berlin\) is in the past \(it is now Mon 10 Mar 2025, 09:00/,
    );
    expect(await w.ask({ title: "x", instructions: "y", cron: "* * * * *" })).toMatch(
      /schedules may fire at most every 5 minutes\.$/,
    );
    expect(await w.ask({ title: "x", instructions: "y", cron: "0 9 * *" })).toMatch(/It needs five fields/);
    expect(await w.ask({ title: "x", instructions: "y" })).toMatch(/^Not scheduled: say when/);
    expect(
      await w.ask({ title: "x", instructions: "y", at: "2025-03-11T09:00", timeZone: "Mars/Base" }),
    ).toMatch(/"Mars\/Base" is not a time zone I know/);
    await w.ask({ title: "a", instructions: "y", cron: "0 9 * * *" }, { callId: "a" });
    await w.ask({ title: "b", instructions: "y", cron: "0 10 * * *" }, { callId: "b" });
    expect(await w.ask({ title: "c", instructions: "y", cron: "0 11 * * *" }, { callId: "c" })).toBe(
      "Not scheduled: you already have 2 schedules, the most one person may have (2). Cancel one with /schedule cancel <id>; /schedules lists them.",
    );
    // Someone else still may.
    expect(
      await w.ask({ title: "d", instructions: "y", cron: "0 11 * * *" }, { callId: "d", userId: "U-bob" }),
    ).toMatch(/^Scheduled/);
  });

  it("reads times in the zone the person is in, or the one named", async () => {
    const w = await world();
    const ny = await w.ask(
      { title: "x", instructions: "y", at: "2025-03-11T09:00" },
      { userId: "U-ny", callId: "ny" },
    );
    expect(ny).toContain("once, on Tue 11 Mar 2025, 09:00 (America/New_York).");
    const named = await w.ask(
      { title: "x", instructions: "y", at: "2025-03-11T09:00", timeZone: "asia/tokyo" },
      { callId: "tokyo" },
    );
    expect(named).toContain("(Asia/Tokyo)");
    expect((await w.schedules.store.get(idIn(ny)))?.nextFireAt).toBe(Date.parse("2025-03-11T13:00:00Z"));
  });
});

describe("exactly once across crashes and processes", () => {
  it("a fire queued before a crash that lost the record's update is not queued again", async () => {
    const w = await world();
    const id = idIn(await w.ask({ title: "t", instructions: "say hi", cron: "0 9 * * *" }));
    const before = await w.schedules.store.get(id);
    w.clock.set(Date.parse("2025-03-11T08:00:01Z"));
    await w.schedules.fireRound();
    // As if the process died after queueing and before writing the advanced record.
    const after = await w.schedules.store.get(id);
    if (!before || !after) throw new Error("no record");
    await w.schedules.store.save(before, after);
    const next = await w.restart();
    expect((await next.schedules.fireRound()).fired).toBe(1);
    expect(w.queued).toHaveLength(1);
    expect((await next.schedules.store.get(id))?.fireCount).toBe(1);
  });

  it("two processes firing the same due schedules at once queue each fire once", async () => {
    const w = await world({ maxPerUser: 100 });
    for (let index = 0; index < 40; index++)
      await w.ask({ title: `s${index}`, instructions: "go", cron: "0 9 * * *" }, { callId: `c${index}` });
    const other = await w.restart();
    w.clock.set(Date.parse("2025-03-11T08:00:00.500Z"));
    const [a, b] = await Promise.all([w.schedules.fireRound(), other.schedules.fireRound()]);
    expect((a?.fired ?? 0) + (b?.fired ?? 0)).toBe(40);
    expect(w.queued).toHaveLength(40);
    expect(new Set(w.queued.map((q) => q.continuation.id)).size).toBe(40);
  });
});

describe("a process that was down at fire time", () => {
  it("fires within catchUpMinutes with a note that it is late", async () => {
    const w = await world();
    const id = idIn(
      await w.ask({ title: "Standup", instructions: "Ask for standup notes.", cron: "0 9 * * *" }),
    );
    w.clock.set(Date.parse("2025-03-11T08:42:00Z"));
    const next = await w.restart();
    expect((await next.schedules.fireRound()).fired).toBe(1);
    await next.runQueued();
    expect(next.runs[0]?.text).toContain(
      "It runs 42 minutes late because Switchboard was not running at that time",
    );
    expect((await next.schedules.store.get(id))?.lastFireAt).toBe(Date.parse("2025-03-11T08:00:00Z"));
  });

  it("skips older misses with one line in the thread saying what was skipped", async () => {
    const w = await world();
    const id = idIn(
      await w.ask({ title: "Standup", instructions: "Ask for standup notes.", cron: "0 9 * * *" }),
    );
    // Down from Monday until Thursday 09:20: Tue and Wed missed long ago, Thursday's is 20 minutes late.
    w.clock.set(Date.parse("2025-03-13T08:20:00Z"));
    const next = await w.restart();
    expect(await next.schedules.fireRound()).toMatchObject({ fired: 1, skipped: 2 });
    await next.runQueued();
    expect(next.posts.map((post) => post.text)).toEqual([
      `Schedule ${id} (Standup) skipped 2 runs due between Tue 11 Mar 2025, 09:00 and Wed 12 Mar 2025, 09:00 (Europe/Berlin): Switchboard was not running then, and runs more than 60 minutes late are not made up.`,
      "Reminder: Ask for standup notes.",
    ]);
    expect(await next.schedules.store.get(id)).toMatchObject({ fireCount: 1, skippedCount: 2 });
    expect(next.runs[0]?.text).toContain("20 minutes late");
  });
});

describe("pause, resume, cancel", () => {
  it("by the person who made it or an admin; others are refused", async () => {
    const w = await world();
    const id = idIn(await w.ask({ title: "Standup", instructions: "x", cron: "0 9 * * *" }));
    expect(await w.command(`schedule pause ${id}`, "U-bob")).toBe(
      `Only the person who made schedule ${id} or an admin can pause it.`,
    );
    expect(await w.command(`schedule pause ${id.toLowerCase()}`)).toBe(
      `Paused schedule ${id} (Standup). /schedule resume ${id} continues it.`,
    );
    expect(await w.command(`schedule pause ${id}`)).toBe(`Schedule ${id} is already paused.`);
    // Paused through two fire times: nothing fires, nothing is caught up on resume.
    w.clock.set(Date.parse("2025-03-12T10:00:00Z"));
    expect((await w.schedules.fireRound()).fired).toBe(0);
    expect(await w.command(`schedule resume ${id}`, "U-admin")).toBe(
      `Resumed schedule ${id} (Standup); next run Thu 13 Mar 2025, 09:00 (Europe/Berlin).`,
    );
    expect((await w.schedules.fireRound()).fired).toBe(0);
    expect(await w.command(`schedule cancel ${id}`)).toBe(
      `Cancelled schedule ${id} (Standup); it will not run again.`,
    );
    expect(await w.command(`schedule resume ${id}`)).toBe(`Schedule ${id} is cancelled.`);
    expect(await w.command("schedule pause S-NOPE00")).toBe(
      "There is no schedule S-NOPE00. /schedules lists yours.",
    );
    expect(await w.schedules.store.countOfOwner("slack:U-alice")).toBe(0);
  });

  it("a fire queued just before a pause is not run", async () => {
    const w = await world();
    const id = idIn(await w.ask({ title: "Standup", instructions: "x", cron: "0 9 * * *" }));
    w.clock.set(Date.parse("2025-03-11T08:00:00Z"));
    await w.schedules.fireRound();
    await w.command(`schedule pause ${id}`);
    await w.runQueued();
    expect(w.runs).toHaveLength(0);
    expect(w.outcomes).toEqual(["dropped"]);
  });

  it("/schedules lists the thread's schedules and the person's own elsewhere", async () => {
    const w = await world();
    await w.ask({ title: "Standup", instructions: "x", cron: "0 9 * * 1-5" });
    await w.ask(
      { title: "Invoice", instructions: "x", at: "2025-03-11T09:00" },
      { key: "slack:T1:C2:1.5", callId: "c2" },
    );
    const list = await w.command("schedules");
    expect(list).toContain("Schedules in this thread:");
    expect(list).toMatch(
      /"Standup" — at 09:00, Monday through Friday \(Europe\/Berlin\); next Tue 11 Mar 2025, 09:00 \(Europe\/Berlin\); fired 0 times/,
    );
    expect(list).toContain("Your schedules elsewhere:");
    expect(list).toContain('"Invoice" — once, on Tue 11 Mar 2025, 09:00');
    expect(await w.command("schedules", "U-bob", "slack:T1:C9:2.0")).toMatch(
      /^No schedules here, and none of yours/,
    );
  });
});

describe("usage limits", () => {
  it("a run of an owner over their cap is not made; the thread is told why", async () => {
    const w = await world({}, undefined, {}, undefined, async (userId) =>
      userId === "U-alice" ? "the daily token limit for you (10,000) is reached" : undefined,
    );
    const id = idIn(await w.ask({ title: "Standup", instructions: "x", cron: "0 9 * * *" }));
    w.clock.set(Date.parse("2025-03-11T08:00:00Z"));
    await w.schedules.fireRound();
    await w.runQueued();
    expect(w.runs).toHaveLength(0);
    expect(w.posts.map((post) => post.text)).toEqual([
      `Schedule ${id} (Standup) did not run: the daily token limit for you (10,000) is reached`,
    ]);
    expect(w.outcomes).toEqual(["failed"]);
    // The schedule itself goes on: tomorrow's run is made when the cap allows it.
    expect((await w.schedules.store.get(id))?.status).toBe("active");
  });
});

describe("a place that can no longer be posted to", () => {
  it("pauses the schedule with the reason instead of failing at every fire", async () => {
    const w = await world();
    const id = idIn(await w.ask({ title: "Standup", instructions: "x", cron: "0 9 * * *" }));
    w.clock.set(Date.parse("2025-03-11T08:00:00Z"));
    await w.schedules.fireRound();
    await w.runQueued({ failPosts: "channel_not_found" });
    expect(await w.schedules.store.get(id)).toMatchObject({
      status: "paused",
      changedBy: "switchboard",
      reason: "its place could not be posted to: channel_not_found",
    });
    expect(w.outcomes).toEqual(["undeliverable"]);
    w.clock.set(Date.parse("2025-03-12T08:00:00Z"));
    expect((await w.schedules.fireRound()).fired).toBe(0);
  });
});

describe("declared schedules", () => {
  const digest = {
    name: "support-digest",
    cron: "0 8 * * *",
    timeZone: "Europe/Berlin",
    conversation: "slack:T1:C1",
    digest: true,
    instructions: "Summarise what #support discussed since the last digest.",
  };

  it("are set up once, keep their state across restarts, follow changes and are cancelled when removed", async () => {
    const w = await world({ declared: [digest] });
    await w.schedules.syncDeclared();
    const made = await w.schedules.store.get("support-digest");
    expect(made).toMatchObject({
      status: "active",
      source: "config",
      ownerId: "operator",
      digest: { place: "slack:T1:C1" },
    });
    expect(made?.nextFireAt).toBe(Date.parse("2025-03-11T07:00:00Z"));
    w.clock.set(Date.parse("2025-03-11T07:00:00Z"));
    await w.schedules.fireRound();
    const again = await w.restart();
    await again.schedules.syncDeclared();
    expect(await again.schedules.store.get("support-digest")).toMatchObject({
      fireCount: 1,
      nextFireAt: Date.parse("2025-03-12T07:00:00Z"),
    });
    // Only admins may change an operator's schedule.
    expect(await again.command("schedule pause support-digest")).toBe(
      "Schedule support-digest is set up by the operator; only an admin can pause it.",
    );
    const changed = await w.restart({ declared: [{ ...digest, cron: "0 7 * * *" }] });
    await changed.schedules.syncDeclared();
    expect((await changed.schedules.store.get("support-digest"))?.nextFireAt).toBe(
      Date.parse("2025-03-12T06:00:00Z"),
    );
    const removed = await w.restart({ declared: [] });
    await removed.schedules.syncDeclared();
    expect(await removed.schedules.store.get("support-digest")).toMatchObject({
      status: "cancelled",
      changedBy: "configuration",
    });
  });

  it("a digest run gets the place's conversations since the last digest, from the steps log and memory", async () => {
    const run = (key: string, trigger: string, at: number): RunSummary => ({
      runId: `${key}-${at}`,
      conversationKey: key,
      trigger,
      startedAt: at,
      endedAt: at + 1_000,
      status: "completed",
      agents: [],
      modelCalls: 1,
      toolCalls: 0,
      inputTokens: 0,
      outputTokens: 0,
      cachedTokens: 0,
      costUsd: 0,
    });
    const since = Date.parse("2025-03-10T07:00:00Z");
    const sources: DigestSources = {
      runs: {
        runsBetween: async (from, to) =>
          [
            run("slack:T1:C1:1.1", "user_message", since + 10 * MINUTE),
            run("slack:T1:C1:1.1", "user_message", since + 20 * MINUTE),
            run("slack:T1:C1:2.2", "user_message", since + 30 * MINUTE),
            run("slack:T1:C2:3.3", "user_message", since + 30 * MINUTE),
            run("slack:T1:C1", "schedule", since + 40 * MINUTE),
          ].filter((r) => r.startedAt >= from && r.startedAt < to),
      },
      archive: {
        recent: async (key) =>
          key === "slack:T1:C1:1.1"
            ? [
                {
                  id: "a",
                  conversationKey: key,
                  workspace: "slack:T1",
                  participants: ["U1"],
                  summary: "Refund for order 7 was approved.",
                  messageCount: 4,
                  tokenEstimate: 100,
                  startedAt: since + 5 * MINUTE,
                  endedAt: since + 25 * MINUTE,
                  reason: "idle",
                },
              ]
            : [],
      },
      book: {
        recentEntries: async (key) =>
          key === "slack:T1:C1:2.2"
            ? [
                {
                  seq: 0,
                  role: "user",
                  summary: "Asks how to export invoices.",
                  raw: "",
                  tags: [],
                  at: since + 30 * MINUTE,
                },
              ]
            : [],
      },
    };
    const w = await world({ declared: [digest] }, undefined, sources);
    await w.schedules.syncDeclared();
    w.clock.set(Date.parse("2025-03-11T07:00:00Z"));
    await w.schedules.fireRound();
    await w.runQueued();
    const text = w.runs[0]?.text ?? "";
    expect(text).toContain("Conversations here since Mon 10 Mar 2025, 08:00 (Europe/Berlin) (busiest first)");
    expect(text).toContain("- slack:T1:C1:1.1: 2 messages");
    expect(text).toContain("  - Refund for order 7 was approved.");
    expect(text).toContain("- slack:T1:C1:2.2: 1 message");
    expect(text).toContain("  - asked: Asks how to export invoices.");
    expect(text).not.toContain("slack:T1:C2");
    // The digest's own runs are not material.
    expect(text).not.toContain("- slack:T1:C1: ");
    expect(w.posts[0]?.conversation).toBe("T1:C1");
  });
});

describe("role all: the due index, polled, with a wake at the next due time", () => {
  it("fires at its time on fake timers, and a restarted driver fires nothing twice", async () => {
    vi.useFakeTimers({
      now: MONDAY,
      toFake: ["setTimeout", "setInterval", "clearTimeout", "clearInterval", "Date"],
    });
    const fakeTime = { now: () => Date.now(), set: () => {}, advance: () => {} };
    const w = await world({ pollSeconds: 5 }, undefined, {}, fakeTime);
    const made = await w.ask({ title: "Soon", instructions: "x", at: "2025-03-10T09:02" });
    w.schedules.startDriving();
    const tick = async (ms: number) => {
      await vi.advanceTimersByTimeAsync(ms);
      await w.schedules.idle();
    };
    await tick(119_000);
    expect(w.queued).toHaveLength(0);
    // The wake set at the last poll before the due time fires it within a few ms of it.
    await tick(1_050);
    expect(w.queued.map((q) => q.continuation.id)).toEqual([`schedule:${idIn(made)}:${MONDAY + 2 * MINUTE}`]);
    await w.schedules.stop();
    const next = await w.restart();
    next.schedules.startDriving();
    await tick(30_000);
    expect(w.queued).toHaveLength(1);
  });
});
