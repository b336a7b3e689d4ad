/**
 * Background tasks with the real CLI on the Slack stand-in: a 30-step task runs while its thread
 * answers follow-ups; it is paused, steered and resumed from chat, and its one result lands in its
 * thread. The same survives a SIGKILL in a step and a SIGKILL between posting the result and
 * learning that it was posted: one result, no step's tool run twice, the steps log continuous.
 */
import { afterEach, describe, expect, it } from "vitest";
import { systemClock } from "../../packages/core/src/runtime/clock.ts";
import { silentLogger } from "../../packages/core/src/runtime/logger.ts";
import { RunStepsLog } from "../../packages/core/src/steps/run-steps-log.ts";
import { openStore } from "../../packages/core/src/store/open-store.ts";
import { TaskStore } from "../../packages/core/src/tasks/task-store.ts";
import { UsageBook, usageDay } from "../../packages/core/src/usage/usage-book.ts";
import { CrashWorld } from "../support/crash/crash-world.ts";
import { holdPosts } from "../support/crash/held-posts.ts";
import { shortAnswer } from "../support/crash/scripted-answers.ts";
import { pause } from "../support/crash/settle.ts";
import type { Origin } from "../support/crash/slack-traffic.ts";
import { GUIDANCE, taskResult, taskScript } from "../support/crash/task-script.ts";
import { BOT_ID } from "../support/slack/workspace-state.ts";
import { ToolStandIn } from "../support/tools/tool-stand-in.ts";

const STEPS = 30;
const TOKEN = "t000";

let world: CrashWorld | undefined;
let lookups: ToolStandIn | undefined;
afterEach(async () => {
  await world?.close();
  await lookups?.close();
  world = undefined;
  lookups = undefined;
});

async function startWorld(): Promise<{ world: CrashWorld; lookups: ToolStandIn }> {
  lookups = await ToolStandIn.start();
  world = await CrashWorld.start({
    store: "sqlite",
    lockTtlSeconds: 3,
    script: taskScript({ steps: STEPS }),
    config: {
      supervisorTools: ["lookup"],
      commandWords: ["task", "tasks"],
      tools: [{ name: "lookup", description: "look up flights and prices", url: lookups.url }],
      extra: { tasks: { maxIterations: 40 } },
    },
  });
  return { world, lookups };
}

function botPosts(origin: Origin): string[] {
  return world!.slack.state
    .thread(origin.message.channel, origin.threadTs)
    .filter((post) => post.bot_id === BOT_ID)
    .map((post) => post.text);
}

async function waitFor<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await probe();
    if (found !== undefined && found !== false) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${world?.logs(40)}`);
    await pause(50);
  }
}

/** Asks in the task's thread and waits for a new bot post that `expected` matches. */
async function ask(origin: Origin, words: string, expected: RegExp): Promise<string> {
  const before = botPosts(origin).length;
  await world!.traffic.deliver(world!.transport(), world!.traffic.mention("", origin.threadTs, words));
  return waitFor(`a reply to "${words}" matching ${expected}`, () =>
    botPosts(origin)
      .slice(before)
      .find((text) => expected.test(text)),
  );
}

async function startTask(): Promise<{ origin: Origin; taskId: string }> {
  const origin = world!.traffic.mention(TOKEN, undefined, "please research");
  await world!.traffic.deliverAll(world!.transport(), [origin]);
  const started = await waitFor("the task's start", () =>
    botPosts(origin).find((text) => text.startsWith("Started task")),
  );
  const taskId = /T-[A-Z0-9]{6}/.exec(started)?.[0];
  if (!taskId) throw new Error(`no task id in "${started}"`);
  return { origin, taskId };
}

const results = (origin: Origin) =>
  botPosts(origin).filter((text) => text.includes(`Research result for ${TOKEN}`));

/** After the process stopped: the steps log of the task, read from the store as another process would. */
async function stepsLogged(taskId: string): Promise<number[]> {
  return (await fromStore(taskId)).steps;
}

/** The task's steps, its run in the run-steps log and what usage counts for its requester, from the store. */
async function fromStore(taskId: string) {
  const store = await openStore(world!.storeUrl, { logger: silentLogger });
  try {
    const tasks = new TaskStore(store, { retentionMs: 86_400_000 });
    const record = await tasks.get(taskId);
    if (!record) throw new Error(`task ${taskId} not in the store`);
    const run = await new RunStepsLog(store, { retentionDays: 7, clock: systemClock }).run(record.runId);
    const usage = new UsageBook(store, { retentionDays: 7, clock: systemClock });
    const today = [usageDay(Date.now())];
    return {
      record,
      steps: (await tasks.steps(record)).map((step) => step.iteration),
      run,
      userTokens: await usage.total("user", record.requesterId, today),
      threadTokens: await usage.total("conversation", record.home.key, today),
    };
  } finally {
    await store.close();
  }
}

function everyStepOnce(stand: ToolStandIn): string[] {
  const wrong: string[] = [];
  for (let step = 1; step < STEPS; step++) {
    const order = `${TOKEN}-s${step}`;
    const executions = stand.executions((call) => call.body.order === order);
    if (executions !== 1) wrong.push(`${order}: ${executions}`);
  }
  return wrong;
}

const upTo = (n: number) => Array.from({ length: n }, (_, index) => index + 1);

describe("background tasks with the real CLI", () => {
  it("runs a 30-step task while the thread answers 5 follow-ups; pause, steer and resume from chat; one result", {
    timeout: 120_000,
  }, async () => {
    const { world, lookups } = await startWorld();
    let holding = true;
    lookups.holdWhile = (call) => holding && call.body.order === `${TOKEN}-s5`;
    await world.startCli();
    const { origin, taskId } = await startTask();
    await waitFor("the task to reach step 5", () => lookups.held.value === 1);

    // The thread is free while its task works: five follow-ups, five answers.
    for (let index = 1; index <= 5; index++) {
      const token = `q00${index}`;
      const before = botPosts(origin).length;
      await world.traffic.deliverAll(world.transport(), [
        world.traffic.reply(token, origin.threadTs, "and also"),
      ]);
      await waitFor(`the answer to ${token}`, () =>
        botPosts(origin).slice(before).includes(shortAnswer(token)),
      );
    }
    expect(results(origin)).toEqual([]);

    expect(await ask(origin, `task pause ${taskId}`, /task/i)).toBe(
      `Pausing task ${taskId}: its current step stops now.`,
    );
    // The running step hears the pause at its lease's next heartbeat (a third of the lock TTL).
    await waitFor("the task to show as paused", async () =>
      (await ask(origin, `task ${taskId}`, /Task/)).includes("paused by") ? true : undefined,
    );
    holding = false;
    lookups.release();
    expect(await ask(origin, `task steer ${taskId} ${GUIDANCE}`, /next step/)).toBe(
      `Task ${taskId} will take that into account from its next step.`,
    );
    expect(await ask(origin, `task resume ${taskId}`, /^Resumed/)).toMatch(`Resumed task ${taskId}`);

    await waitFor("the task's result", () => results(origin).length > 0, 60_000);
    await pause(1_500);
    expect(results(origin)).toHaveLength(1);
    expect(results(origin)[0]).toContain(taskResult(TOKEN, STEPS, true));
    expect(results(origin)[0]).toContain(`*Task ${taskId} · Research ${TOKEN}* is done (${STEPS} steps)`);
    expect(everyStepOnce(lookups)).toEqual([]);
    const tasksList = await ask(origin, "tasks", /Background tasks in this thread/);
    expect(tasksList).toContain(`${taskId} "Research ${TOKEN}" — completed, step ${STEPS} of at most 40`);
    await world.cli()?.terminate();
    expect(await stepsLogged(taskId)).toEqual(upTo(STEPS));
  });

  it("a SIGKILL in a step: the restarted process continues from its last step; one result", {
    timeout: 120_000,
  }, async () => {
    const { world, lookups } = await startWorld();
    let holding = true;
    lookups.holdWhile = (call) => holding && call.body.order === `${TOKEN}-s10`;
    const first = await world.startCli();
    const { origin, taskId } = await startTask();
    await waitFor("the task to reach step 10", () => lookups.held.value === 1);
    await first.kill();
    holding = false;
    lookups.release();
    await world.startCli();
    await waitFor("the task's result", () => results(origin).length > 0, 60_000);
    await pause(1_500);
    expect(results(origin), world.logs()).toHaveLength(1);
    expect(results(origin)[0]).toContain(taskResult(TOKEN, STEPS, false));
    // Step 10's lookup reached the service before the kill and again after it, with the same key:
    // the service executed it once.
    expect(everyStepOnce(lookups)).toEqual([]);
    await world.cli()?.terminate();
    expect(await stepsLogged(taskId)).toEqual(upTo(STEPS));
  });

  it("a SIGKILL between posting the result and hearing back: the result is in the thread once", {
    timeout: 120_000,
  }, async () => {
    const { world, lookups } = await startWorld();
    const held = holdPosts(world.slack.api, (text) => text.includes(`Research result for ${TOKEN}`));
    const first = await world.startCli();
    const { origin, taskId } = await startTask();
    await waitFor("the result's post to be held", () => held.held.value === 1, 60_000);
    await first.kill();
    held.release();
    await world.startCli();
    await pause(6_000);
    expect(results(origin), world.logs()).toHaveLength(1);
    expect(everyStepOnce(lookups)).toEqual([]);
    await world.cli()?.terminate();
    expect(await stepsLogged(taskId)).toEqual(upTo(STEPS));
  });
});
