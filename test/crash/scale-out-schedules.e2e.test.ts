/**
 * Schedules in a cluster: one ingress and two workers on Redis, 200 schedules declared in
 * switchboard.yaml, each in its own Slack thread, all due in the same second. Every process syncs
 * the declarations at start; the fires are queued by one worker's round at a time and run on both
 * workers. Each schedule posts exactly once, in its own thread.
 */
import { waitFor } from "@switchboard/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { CrashWorld } from "../support/crash/crash-world.ts";
import {
  firedText,
  localDateTime,
  SCHEDULED_MARK,
  scheduleScript,
} from "../support/crash/schedule-script.ts";
import { pause } from "../support/crash/settle.ts";
import { ALICE, BOT_ID, GENERAL, TEAM_ID } from "../support/slack/workspace-state.ts";

const SCHEDULES = 200;
const INGRESS = 0;
const WORKERS = [1, 2] as const;
const ZONE = "America/New_York";

let world: CrashWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const nameOf = (index: number) => `batch-${String(index).padStart(3, "0")}`;

describe("schedules on a cluster", () => {
  it("two workers on Redis fire 200 schedules due in the same second exactly once each", {
    timeout: 240_000,
  }, async () => {
    world = await CrashWorld.start({
      store: "redis",
      slots: 3,
      lockTtlSeconds: 3,
      script: scheduleScript({ zone: ZONE, leadMs: 0 }),
    });
    const cluster = world;
    const roots = Array.from({ length: SCHEDULES }, (_, index) =>
      cluster.slack.state.add({ channel: GENERAL, user: ALICE, text: `thread ${nameOf(index)}` }),
    );
    // Far enough ahead for three processes to start on a loaded machine; whole seconds, one instant.
    const dueAt = Math.ceil((Date.now() + 60_000) / 1000) * 1000;
    const declared = roots.map((root, index) => ({
      name: nameOf(index),
      at: localDateTime(dueAt, ZONE),
      timeZone: ZONE,
      conversation: `slack:${TEAM_ID}:${GENERAL}:${root.ts}`,
      instructions: `Fire ${nameOf(index)}.`,
    }));
    cluster.configure({ extra: { schedules: { declared, pollSeconds: 0.5 } } });
    await Promise.all([
      cluster.startCli(INGRESS, { role: "ingress" }),
      ...WORKERS.map((worker) => cluster.startCli(worker, { role: "worker" })),
    ]);
    expect(Date.now(), "the processes took longer to start than the lead time").toBeLessThan(dueAt);

    const postsOf = (index: number) =>
      cluster.slack.state
        .thread(GENERAL, roots[index]?.ts ?? "")
        .filter((post) => post.bot_id === BOT_ID && post.text.includes(firedText(nameOf(index))));
    await waitFor(
      "every schedule's post",
      () => roots.every((_, index) => postsOf(index).length >= 1),
      120_000,
    );
    await pause(3_000);
    const wrong = roots.flatMap((_, index) => {
      const count = postsOf(index).length;
      return count === 1 ? [] : [`${nameOf(index)}: ${count}`];
    });
    expect(wrong, cluster.logs()).toEqual([]);
    // Every run asked the model once; the ingress ran none, both workers ran some.
    const scheduledCalls = (slot: number) =>
      cluster.stub(slot).requests.filter((request) => request.lastUserText.includes(SCHEDULED_MARK)).length;
    expect(scheduledCalls(WORKERS[0]) + scheduledCalls(WORKERS[1])).toBe(SCHEDULES);
    expect(scheduledCalls(INGRESS)).toBe(0);
    expect(scheduledCalls(WORKERS[0])).toBeGreaterThan(0);
    expect(scheduledCalls(WORKERS[1])).toBeGreaterThan(0);
  });
});
