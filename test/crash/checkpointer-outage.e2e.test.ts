/**
 * The checkpointer's Postgres stops while turns run (the real CLI, the embedded store for messages,
 * checkpoints on a Postgres of the test's own). A turn that cannot read or write its checkpoint is
 * not failed: no "something went wrong", its message stays queued and runs again once Postgres is
 * back, from the last checkpoint (the thread's earlier exchange, nothing half-written). A thread
 * that waits past the request notice gets that one sentence; every message is answered once.
 */
import { waitFor } from "@switchboard/core/testing";
import { afterEach, expect, it } from "vitest";
import { RestartablePostgres } from "../services/restartable-postgres.ts";
import { answerReport } from "../support/crash/answers.ts";
import { CrashWorld } from "../support/crash/crash-world.ts";
import { answerWith, shortAnswer, shortParts } from "../support/crash/scripted-answers.ts";
import { describeReport, exactlyOnce, pause, settleAnswers } from "../support/crash/settle.ts";
import type { Origin } from "../support/crash/slack-traffic.ts";
import { textOf } from "../support/model/chat-request.ts";

let world: CrashWorld | undefined;
let postgres: RestartablePostgres | undefined;
afterEach(async () => {
  await world?.close();
  await postgres?.close();
  world = undefined;
  postgres = undefined;
});

const THREADS = 4;
const NOTICE = "Still working on it";
const settleOptions = { deadlineMs: 180_000, stallMs: 60_000, quietMs: 3_000 };

it("a turn that loses Postgres mid-way runs again after it returns, from the last checkpoint, answered once", {
  timeout: 300_000,
}, async () => {
  postgres = await RestartablePostgres.start();
  if (!postgres) throw new Error("Postgres is not installed");
  const server = postgres;
  world = await CrashWorld.start({
    store: "sqlite",
    script: answerWith(shortAnswer, { latencyMs: 1_500 }),
    config: {
      extra: { checkpoints: server.url, requests: { noticeAfterSeconds: 6, timeoutSeconds: 3_600 } },
    },
  });
  const cluster = world;
  await cluster.startCli(0);

  // Each thread's first question is answered (its checkpoint written) before the outage.
  const first: Origin[] = Array.from({ length: THREADS }, (_, index) =>
    cluster.traffic.mention(`q${String(index).padStart(3, "0")}`),
  );
  for (const origin of first)
    expect(await cluster.traffic.deliverUntilAcked(cluster.transport(0), origin)).toBe(true);
  await settleAnswers(cluster.slack.state, first, shortParts, settleOptions);

  const followUps = first.map((origin, index) =>
    cluster.traffic.reply(`q${String(100 + index).padStart(3, "0")}`, origin.threadTs),
  );
  const requestsBefore = cluster.stub(0).requests.length;
  for (const origin of followUps)
    expect(await cluster.traffic.deliverUntilAcked(cluster.transport(0), origin)).toBe(true);
  await waitFor(
    "follow-up turns at the model",
    () => cluster.stub(0).inFlight.value >= 2 || undefined,
    60_000,
  );

  // Postgres goes away while those turns wait for the model: their checkpoint writes fail.
  await server.stop();
  await pause(10_000);
  await server.resume();

  const origins = [...first, ...followUps];
  const report = await settleAnswers(cluster.slack.state, origins, shortParts, settleOptions);
  const notices = report.strays.filter((stray) => stray.includes(NOTICE));
  const others = report.strays.filter((stray) => !stray.includes(NOTICE));
  expect(describeReport({ ...report, strays: others }, origins.length), cluster.logs()).toBe(
    exactlyOnce(origins.length),
  );
  // At most the one "still working" sentence per thread; never "something went wrong".
  expect(notices.length).toBeLessThanOrEqual(THREADS);
  expect(cluster.cli(0)?.stderr).not.toContain('"msg":"turn failed"');
  expect(answerReport(cluster.slack.state, origins, shortParts).complete).toBe(origins.length);

  // Each follow-up was answered from the thread's last checkpoint: its first exchange once, the
  // follow-up once — nothing half-written, nothing repeated.
  const answering = cluster.stub(0).requests.slice(requestsBefore);
  followUps.forEach((origin, index) => {
    const request = answering
      .filter((candidate) =>
        candidate.body.messages.some((message) => textOf(message.content).includes(origin.token)),
      )
      .at(-1);
    const userTexts = (request?.body.messages ?? [])
      .filter((message) => message.role === "user")
      .map((message) => textOf(message.content));
    const firstToken = first[index]?.token ?? "";
    expect(
      userTexts.filter((text) => text.includes(firstToken)),
      `thread ${index}`,
    ).toHaveLength(1);
    expect(
      userTexts.filter((text) => text.includes(origin.token)),
      `thread ${index}`,
    ).toHaveLength(1);
  });
});
