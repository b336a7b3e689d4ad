/**
 * Reminders with the real CLI on the Slack stand-in: asked for in a thread ("remind me … q101"),
 * the agent (a model stub writing the time in the person's Slack time zone) makes a schedule that
 * fires once into that thread, recorded as a run with trigger `schedule` and its tokens in the
 * run-steps log. The same holds through a SIGKILL during the fire's run, a SIGKILL between posting
 * the reminder and hearing back, and a process that is down at the fire instant.
 */
import { waitFor } from "@switchboard/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../packages/core/src/runtime/logger.ts";
import { ScheduleStore } from "../../packages/core/src/schedules/schedule-store.ts";
import { RunStepsLog } from "../../packages/core/src/steps/run-steps-log.ts";
import { openStore } from "../../packages/core/src/store/open-store.ts";
import { CrashWorld } from "../support/crash/crash-world.ts";
import { holdPosts } from "../support/crash/held-posts.ts";
import { reminderText, SCHEDULED_MARK, scheduleScript } from "../support/crash/schedule-script.ts";
import { pause } from "../support/crash/settle.ts";
import type { Origin } from "../support/crash/slack-traffic.ts";
import type { StubReply } from "../support/model/chat-request.ts";
import { ALICE, BOT_ID, TEAM_ID } from "../support/slack/workspace-state.ts";

const ZONE = "Europe/Berlin";

let world: CrashWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

async function startWorld(options: {
  leadMs: number;
  firedReply?: (token: string) => StubReply | undefined;
}): Promise<CrashWorld> {
  world = await CrashWorld.start({
    store: "sqlite",
    lockTtlSeconds: 3,
    script: scheduleScript({
      zone: ZONE,
      leadMs: options.leadMs,
      ...(options.firedReply ? { firedReply: (token) => options.firedReply?.(token) } : {}),
    }),
    config: { extra: { schedules: { pollSeconds: 0.5 } } },
  });
  // Alice's Slack profile says where she is: the agent's prompt and her reminders use it.
  world.slack.state.timeZones.set(ALICE, ZONE);
  return world;
}

function botPosts(origin: Origin): string[] {
  return world!.slack.state
    .thread(origin.message.channel, origin.threadTs)
    .filter((post) => post.bot_id === BOT_ID)
    .map((post) => post.text);
}

/** A thread the bot takes part in, and a reminder asked for inside it (so it is thread-born). */
async function askForReminder(token: string): Promise<{ thread: Origin; confirmation: string }> {
  const w = world!;
  const thread = w.traffic.mention("q000", undefined, "hello");
  await w.traffic.deliverAll(w.transport(), [thread]);
  await waitFor("the answer that opens the thread", () => botPosts(thread).length === 1, 30_000);
  const ask = w.traffic.reply(token, thread.threadTs, "please remind me to send the invoice");
  await w.traffic.deliverAll(w.transport(), [ask]);
  const confirmation = await waitFor(
    "the reminder's confirmation",
    () => botPosts(thread).find((text) => text.startsWith("Scheduled S-")),
    30_000,
  );
  return { thread, confirmation };
}

const reminders = (thread: Origin, token: string) =>
  botPosts(thread).filter((text) => text.includes(reminderText(token)));

describe("reminders with the real CLI", () => {
  it("a reminder made by chat fires once into its thread, in the person's zone, recorded with its tokens", {
    timeout: 90_000,
  }, async () => {
    const w = await startWorld({ leadMs: 5_000 });
    await w.startCli();
    const { thread, confirmation } = await askForReminder("q101");
    expect(confirmation).toMatch(/: once, on \w{3} \d+ \w{3} \d{4}, \d{2}:\d{2} \(Europe\/Berlin\)\./);
    // The agent that made it knew the date, time and place in Alice's zone.
    const asked = w.stub().requests.find((request) => request.lastUserText.includes("remind me"));
    expect(asked?.system).toMatch(
      /Current date and time: \w+day, .+ \(Europe\/Berlin, GMT[+-]\d{2}:00\)\. You are on Slack, in #general\.$/,
    );
    await waitFor("the reminder", () => reminders(thread, "q101").length > 0, 30_000);
    await pause(2_000);
    expect(reminders(thread, "q101"), w.logs()).toHaveLength(1);
    const scheduledRuns = w
      .stub()
      .requests.filter((request) => request.lastUserText.includes(SCHEDULED_MARK));
    expect(scheduledRuns).toHaveLength(1);
    await w.cli()?.terminate();

    const store = await openStore(w.storeUrl, { logger: silentLogger });
    try {
      const id = /S-[A-Z0-9]{6}/.exec(confirmation)?.[0] ?? "";
      const schedules = new ScheduleStore(store, { retentionMs: 86_400_000 });
      expect(await schedules.get(id)).toMatchObject({ status: "done", fireCount: 1 });
      const [fire] = await schedules.fires(id);
      expect(fire).toMatchObject({ outcome: "posted" });
      const log = new RunStepsLog(store, { retentionDays: 7, clock: { now: () => Date.now() } });
      const key = `slack:${TEAM_ID}:${thread.message.channel}:${thread.threadTs}`;
      const run = (await log.runsOfConversation(key)).find((summary) => summary.trigger === "schedule");
      expect(run).toMatchObject({ runId: fire?.runId, requestId: fire?.requestId, status: "completed" });
      expect(run?.inputTokens).toBeGreaterThan(0);
    } finally {
      await store.close();
    }
  });

  it("a SIGKILL while the fire's run is in flight: the restarted process posts it once", {
    timeout: 90_000,
  }, async () => {
    let firstAttempt = true;
    const w = await startWorld({
      leadMs: 4_000,
      firedReply: (token) => {
        // The first attempt hangs until the process is killed under it.
        if (!firstAttempt) return undefined;
        firstAttempt = false;
        return { kind: "answer", text: reminderText(token), latencyMs: 60_000 };
      },
    });
    const first = await w.startCli();
    const { thread } = await askForReminder("q102");
    await waitFor(
      "the fire's run to be in flight",
      () =>
        w.stub().requests.some((request) => request.lastUserText.includes(SCHEDULED_MARK)) &&
        w.stub().inFlight.value > 0,
      30_000,
    );
    await first.kill();
    await w.startCli();
    await waitFor("the reminder after the restart", () => reminders(thread, "q102").length > 0, 30_000);
    await pause(2_000);
    expect(reminders(thread, "q102"), w.logs()).toHaveLength(1);
    // The run was cut by the kill and run again after the restart: two model calls, one post.
    expect(w.stub().requests.filter((request) => request.lastUserText.includes(SCHEDULED_MARK))).toHaveLength(
      2,
    );
  });

  it("a SIGKILL between posting the reminder and hearing back: it is in the thread once", {
    timeout: 90_000,
  }, async () => {
    const w = await startWorld({ leadMs: 4_000 });
    const held = holdPosts(w.slack.api, (text) => text.includes(reminderText("q103")));
    const first = await w.startCli();
    const { thread } = await askForReminder("q103");
    await waitFor("the reminder's post to be held", () => held.held.value === 1, 30_000);
    await first.kill();
    held.release();
    await w.startCli();
    await pause(6_000);
    expect(reminders(thread, "q103"), w.logs()).toHaveLength(1);
    // The answer was in the outbox before the post: the restart delivered it without asking the model again.
    expect(w.stub().requests.filter((request) => request.lastUserText.includes(SCHEDULED_MARK))).toHaveLength(
      1,
    );
  });

  it("a process down at the fire instant fires it once when it starts again", {
    timeout: 90_000,
  }, async () => {
    const w = await startWorld({ leadMs: 6_000 });
    const first = await w.startCli();
    const { thread } = await askForReminder("q104");
    await first.kill();
    // Down across the fire time.
    await pause(7_000);
    expect(reminders(thread, "q104")).toHaveLength(0);
    await w.startCli();
    await waitFor("the reminder after the restart", () => reminders(thread, "q104").length > 0, 30_000);
    await pause(2_000);
    expect(reminders(thread, "q104"), w.logs()).toHaveLength(1);
  });
});
