/**
 * Background tasks in a cluster: one ingress, two workers on Redis, 50 tasks started in 20 threads.
 * Their steps run as BullMQ jobs on both workers; one worker is SIGKILLed while it runs steps. Every
 * task's result is delivered once, in its own thread, and no step's tool ran twice.
 */
import { waitFor } from "@switchboard/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { CrashWorld } from "../support/crash/crash-world.ts";
import { pause } from "../support/crash/settle.ts";
import type { Origin } from "../support/crash/slack-traffic.ts";
import { TASK_PROMPT_MARK, taskResult, taskScript } from "../support/crash/task-script.ts";
import { BOT_ID } from "../support/slack/workspace-state.ts";
import { ToolStandIn } from "../support/tools/tool-stand-in.ts";

const TASKS = 50;
const THREADS = 20;
const STEPS = 6;
const INGRESS = 0;
const WORKERS = [1, 2] as const;

let world: CrashWorld | undefined;
let lookups: ToolStandIn | undefined;
afterEach(async () => {
  await world?.close();
  await lookups?.close();
  world = undefined;
  lookups = undefined;
});

const tokenOf = (index: number) => `t${String(index).padStart(3, "0")}`;

describe("background tasks on a cluster", () => {
  it("50 tasks in 20 threads, a worker SIGKILLed mid-step: every result delivered once", {
    timeout: 300_000,
  }, async () => {
    lookups = await ToolStandIn.start();
    world = await CrashWorld.start({
      store: "redis",
      slots: 3,
      lockTtlSeconds: 3,
      script: taskScript({ steps: STEPS, stepLatencyMs: 150 }),
      config: {
        supervisorTools: ["lookup"],
        tools: [{ name: "lookup", description: "look up flights and prices", url: lookups.url }],
        extra: { requests: { noticeAfterSeconds: 3_600, timeoutSeconds: 7_200 } },
      },
    });
    const cluster = world;
    await cluster.startCli(INGRESS, { role: "ingress" });
    for (const worker of WORKERS) await cluster.startCli(worker, { role: "worker" });

    const roots: (Origin | undefined)[] = Array.from({ length: THREADS }, () => undefined);
    const origins: Origin[] = [];
    for (let index = 0; index < TASKS; index++) {
      const thread = index % THREADS;
      const origin = cluster.traffic.mention(tokenOf(index), roots[thread]?.threadTs, "please research");
      roots[thread] ??= origin;
      origins.push(origin);
      await cluster.traffic.deliverUntilAcked(cluster.transport(INGRESS), origin);
    }
    const [survivor, victim] = WORKERS;
    const taskCalls = (slot: number) =>
      cluster.stub(slot).requests.filter((request) => request.system.includes(TASK_PROMPT_MARK)).length;
    await waitFor(
      "the victim to have run task steps and to have one in flight",
      () => taskCalls(victim) >= 20 && cluster.stub(victim).inFlight.value > 0,
      120_000,
    );
    await cluster.cli(victim)?.kill();

    const resultsOf = (index: number) => {
      const origin = origins[index] as Origin;
      return cluster.slack.state
        .thread(origin.message.channel, origin.threadTs)
        .filter(
          (post) => post.bot_id === BOT_ID && post.text.includes(taskResult(tokenOf(index), STEPS, false)),
        );
    };
    await waitFor(
      "every task's result",
      () => origins.every((_, index) => resultsOf(index).length >= 1),
      180_000,
    ).catch((error: unknown) => {
      // Which tasks never answered, and what the processes said: a timeout alone explains nothing.
      // Every line any process logged about their threads (their turns, tasks and runs name them),
      // then the tails.
      const missing = origins.flatMap((_, index) => (resultsOf(index).length === 0 ? [index] : []));
      const threads = [...new Set(missing.map((index) => (origins[index] as Origin).threadTs))];
      throw new Error(
        `${String(error)}; no result for ${missing.map(tokenOf).join(", ")}\n` +
          `${cluster.logsAbout(threads)}\n${cluster.logs(40)}`,
      );
    });
    await pause(3_000);
    const counts = origins.map((_, index) => resultsOf(index).length);
    const tokens = counts.flatMap((count, index) => (count === 1 ? [] : [tokenOf(index)]));
    const wrong = counts.flatMap((count, index) => (count === 1 ? [] : [`${tokenOf(index)}: ${count}`]));
    expect(wrong, cluster.logsAbout(tokens)).toEqual([]);
    const doubled: string[] = [];
    for (let index = 0; index < TASKS; index++)
      for (let step = 1; step < STEPS; step++) {
        const order = `${tokenOf(index)}-s${step}`;
        const executions = lookups.executions((call) => call.body.order === order);
        if (executions !== 1) doubled.push(`${order}: ${executions}`);
      }
    expect(doubled).toEqual([]);
    // The ingress ran no step; the survivor finished what the victim left.
    expect(cluster.stub(INGRESS).received.value).toBe(0);
    expect(taskCalls(survivor)).toBeGreaterThan(0);
  });
});
