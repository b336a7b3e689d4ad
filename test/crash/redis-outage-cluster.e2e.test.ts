/**
 * The Redis store (and BullMQ with it) goes away under a scaled-out cluster: one ingress holding
 * Slack, two workers running turns, all on the test's own Redis, which is stopped while messages
 * arrive and turns run, and started again. While it is down the ingress refuses every message
 * (Slack gets a non-2xx and delivers it again); workers whose turns outlive their conversation
 * lock give the work back instead of answering twice. Once Redis is back, every message is
 * answered exactly once and all three processes are still running.
 *
 * The outage lasts 5 s and 60 s in CI (a 3 s lock TTL: every running turn's lease lapses);
 * SWITCHBOARD_TEST_OUTAGE_SECONDS=600 runs a 10-minute one (./support/crash/outage-lengths.ts).
 */
import { waitFor } from "@switchboard/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { RestartableRedis } from "../services/restartable-redis.ts";
import { answerReport } from "../support/crash/answers.ts";
import { CrashWorld } from "../support/crash/crash-world.ts";
import { outageLabel, outageLengthsMs } from "../support/crash/outage-lengths.ts";
import { answerWith, shortAnswer, shortParts } from "../support/crash/scripted-answers.ts";
import { describeReport, exactlyOnce, pause, settleAnswers } from "../support/crash/settle.ts";
import type { Origin } from "../support/crash/slack-traffic.ts";

const INGRESS = 0;
const WORKERS = [1, 2] as const;

let world: CrashWorld | undefined;
let redis: RestartableRedis | undefined;
afterEach(async () => {
  await world?.close();
  await redis?.close();
  world = undefined;
  redis = undefined;
});

const OUTAGES_MS = outageLengthsMs([5, 60]);

const settleOptions = { deadlineMs: 300_000, stallMs: 90_000, quietMs: 3_000 };

async function startCluster(): Promise<{ cluster: CrashWorld; server: RestartableRedis }> {
  const server = await RestartableRedis.start({ keepsData: true });
  if (!server) throw new Error("redis-server is not installed");
  redis = server;
  const cluster = await CrashWorld.start({
    store: "redis",
    redisUrl: server.url,
    slots: 3,
    lockTtlSeconds: 3,
    // Turns long enough to be running on the workers when the store goes away.
    script: answerWith(shortAnswer, { latencyMs: 1_500 }),
    config: { extra: { requests: { noticeAfterSeconds: 3_600, timeoutSeconds: 7_200 } } },
  });
  world = cluster;
  await cluster.startCli(INGRESS, { role: "ingress" });
  for (const worker of WORKERS) await cluster.startCli(worker, { role: "worker" });
  return { cluster, server };
}

/** Mentions with tokens `q<batch><nn>` (the scripted model repeats the token in its answer). */
function mentions(cluster: CrashWorld, batch: number, count: number): Origin[] {
  return Array.from({ length: count }, (_, index) =>
    cluster.traffic.mention(`q${batch}${String(index).padStart(2, "0")}`),
  );
}

const inFlight = (cluster: CrashWorld) =>
  WORKERS.reduce((sum, worker) => sum + cluster.stub(worker).inFlight.value, 0);

describe("the Redis store goes away under a cluster (one ingress, two workers)", () => {
  it.each(OUTAGES_MS.map((ms) => [outageLabel(ms), ms] as const))(
    "an outage of %s: the ingress refuses meanwhile, workers give work back, everything is answered once",
    { timeout: Math.max(...OUTAGES_MS) + 480_000 },
    async (_label, outageMs) => {
      const { cluster, server } = await startCluster();
      const ingress = cluster.transport(INGRESS);
      const before = mentions(cluster, 0, 12);
      const acked = await cluster.traffic.deliverAll(ingress, before, { parallel: 12 });
      expect(acked.refused).toEqual([]);
      await waitFor("turns running on the workers", () => inFlight(cluster) >= 4 || undefined, 120_000);

      await server.stop();
      const stoppedAt = Date.now();
      // Messages keep arriving: at the start of the outage and half-way through it.
      const during = [mentions(cluster, 1, 4), mentions(cluster, 2, 4)];
      const refusedAtStart = await cluster.traffic.deliverAll(ingress, during[0] ?? [], { parallel: 4 });
      // Nothing sent while the store is down is acknowledged: Slack keeps it and delivers it again.
      expect(refusedAtStart.acked).toEqual([]);
      expect(cluster.cli(INGRESS)?.stderr).toContain("the store is unavailable");
      await pause(Math.max(0, stoppedAt + outageMs / 2 - Date.now()));
      const refusedMidway = await cluster.traffic.deliverAll(ingress, during[1] ?? [], { parallel: 4 });
      expect(refusedMidway.acked).toEqual([]);
      await pause(Math.max(0, stoppedAt + outageMs - Date.now()));
      await server.resume();
      const resumedAt = Date.now();

      // Slack's retries of what was refused, then new messages.
      for (const origin of during.flat()) {
        expect(await cluster.traffic.deliverUntilAcked(ingress, origin), cluster.logs()).toBe(true);
      }
      const after = mentions(cluster, 3, 4);
      for (const origin of after) {
        expect(await cluster.traffic.deliverUntilAcked(ingress, origin), cluster.logs()).toBe(true);
      }

      const origins = [...before, ...during.flat(), ...after];
      const report = await settleAnswers(cluster.slack.state, origins, shortParts, settleOptions);
      const recoveredInMs = Date.now() - resumedAt - settleOptions.quietMs;
      // What the processes logged about the threads that went wrong, beside the last lines of each.
      const named = [...report.lost, ...report.doubled, ...report.incomplete];
      const threads = origins
        .filter(({ token }) => named.some((entry) => entry === token || entry.startsWith(`${token}:`)))
        .map((origin) => origin.threadTs);
      expect(
        describeReport(report, origins.length),
        `${cluster.logs(40)}\n${threads.length > 0 ? cluster.logsAbout(threads) : ""}`,
      ).toBe(exactlyOnce(origins.length));
      expect(answerReport(cluster.slack.state, origins, shortParts).complete).toBe(origins.length);
      // The ingress ran no turn; every process is still up.
      expect(cluster.stub(INGRESS).received.value).toBe(0);
      for (const slot of [INGRESS, ...WORKERS]) expect(cluster.cli(slot)?.running, cluster.logs()).toBe(true);
      console.info(
        `cluster outage ${outageLabel(outageMs)}: ${origins.length} messages answered once; ` +
          `all answered ${(recoveredInMs / 1_000).toFixed(1)} s after Redis returned`,
      );
    },
  );
});
