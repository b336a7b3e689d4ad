/**
 * The disk under the embedded SQLite store fills up (a small tmpfs of the test's own, filled with a
 * file) while messages arrive and turns run: intake refuses what it cannot write, with the reason in the log
 * (Slack gets a non-2xx and delivers it again); nothing it had acknowledged is lost; once the space
 * is back the same process takes the retries and answers everything exactly once. Mounting needs
 * root: elsewhere the test is skipped.
 */
import { waitFor } from "@switchboard/core/testing";
import { afterEach, expect, it } from "vitest";
import { SmallFileSystem } from "../services/small-file-system.ts";
import { CrashWorld } from "../support/crash/crash-world.ts";
import { answerWith, shortAnswer, shortParts } from "../support/crash/scripted-answers.ts";
import { describeReport, exactlyOnce, settleAnswers } from "../support/crash/settle.ts";
import type { Origin } from "../support/crash/slack-traffic.ts";

let world: CrashWorld | undefined;
let disk: SmallFileSystem | undefined;
afterEach(async () => {
  await world?.close();
  await disk?.unmount();
  world = undefined;
  disk = undefined;
});

const settleOptions = { deadlineMs: 120_000, stallMs: 45_000, quietMs: 2_000 };
/** Messages sent while the disk is full, at most; the test stops sending after a few refusals. */
const MAX_WHILE_FULL = 60;

it("refuses while the disk is full, loses nothing it acknowledged, and recovers by itself", {
  timeout: 300_000,
}, async (context) => {
  disk = await SmallFileSystem.mount(24);
  if (!disk) {
    context.skip("mounting a tmpfs needs root");
    return;
  }
  world = await CrashWorld.start({
    store: "sqlite",
    sqliteDir: disk.dir,
    // Slow enough that the first turns are still running when the disk fills.
    script: answerWith(shortAnswer, { latencyMs: 1_500 }),
  });
  const cluster = world;
  await cluster.startCli(0);
  const mention = (index: number) => cluster.traffic.mention(`q${String(index).padStart(3, "0")}`);

  const before = Array.from({ length: 4 }, (_, index) => mention(index));
  for (const origin of before)
    expect(await cluster.traffic.deliverUntilAcked(cluster.transport(0), origin)).toBe(true);
  await waitFor("turns running", () => cluster.stub(0).inFlight.value >= 2 || undefined, 60_000);

  // Full while those turns run: their answers cannot be written to the outbox yet.
  await disk.fill();
  const acked: Origin[] = [];
  const refused: Origin[] = [];
  for (let index = 100; index < 100 + MAX_WHILE_FULL && refused.length < 3; index++) {
    const origin = mention(index);
    const outcome = await cluster.traffic.deliverAll(cluster.transport(0), [origin]);
    acked.push(...outcome.acked);
    refused.push(...outcome.refused);
  }
  expect(refused.length, "no message was refused while the disk was full").toBeGreaterThan(0);
  // The reason is logged; a turn that hit the full disk is not failed (no "something went wrong"
  // for the user), its work stays queued.
  expect(cluster.cli(0)?.stderr).toContain("the store's disk is full");

  await disk.free();
  // Slack's retries of what was refused, then new messages.
  for (const origin of refused)
    expect(await cluster.traffic.deliverUntilAcked(cluster.transport(0), origin)).toBe(true);
  const after = Array.from({ length: 4 }, (_, index) => mention(200 + index));
  for (const origin of after)
    expect(await cluster.traffic.deliverUntilAcked(cluster.transport(0), origin)).toBe(true);

  const origins = [...before, ...acked, ...refused, ...after];
  const report = await settleAnswers(cluster.slack.state, origins, shortParts, settleOptions);
  expect(describeReport(report, origins.length), cluster.logs()).toBe(exactlyOnce(origins.length));
  expect(cluster.cli(0)?.running).toBe(true);
  expect(cluster.cli(0)?.stderr).not.toContain('"msg":"turn failed"');
});
