/**
 * The Redis store goes away while messages arrive and turns run (one process, the real CLI, Slack
 * through the stand-in). The test's own Redis is stopped and started again (the run's shared Redis
 * serves every other test). While it is down, intake refuses every message (Slack gets a non-2xx
 * and delivers it again); turns that were running wait for the store, or give their work back when
 * their lock lapsed; once Redis is back, every message is answered exactly once.
 *
 * Outages of 5 s and 20 s with a 3 s lock TTL: both outlast the running turns' lock leases, the
 * second by many TTLs (the compressed form of a minutes-long outage with the default 30 s TTL).
 * SWITCHBOARD_TEST_OUTAGE_SECONDS=60,600 runs other lengths (../support/crash/outage-lengths.ts).
 */
import { waitFor } from "@switchboard/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { RestartableRedis } from "../services/restartable-redis.ts";
import { CrashWorld } from "../support/crash/crash-world.ts";
import { outageLabel, outageLengthsMs } from "../support/crash/outage-lengths.ts";
import { answerWith, shortAnswer, shortParts } from "../support/crash/scripted-answers.ts";
import { describeReport, exactlyOnce, pause, settleAnswers } from "../support/crash/settle.ts";
import type { Origin } from "../support/crash/slack-traffic.ts";

let world: CrashWorld | undefined;
let redis: RestartableRedis | undefined;
afterEach(async () => {
  await world?.close();
  await redis?.close();
  world = undefined;
  redis = undefined;
});

const OUTAGES_MS = outageLengthsMs([5, 20]);

const settleOptions = { deadlineMs: 180_000, stallMs: 60_000, quietMs: 2_000 };

async function startWorld(keepsData: boolean): Promise<{ world: CrashWorld; redis: RestartableRedis }> {
  const started = await RestartableRedis.start({ keepsData });
  if (!started) throw new Error("redis-server is not installed");
  redis = started;
  world = await CrashWorld.start({
    store: "redis",
    redisUrl: started.url,
    lockTtlSeconds: 3,
    // Turns long enough to be running when the store goes away.
    script: answerWith(shortAnswer, { latencyMs: 1_500 }),
    config: {
      extra: { requests: { noticeAfterSeconds: 3_600, timeoutSeconds: 7_200 } },
    },
  });
  await world.startCli(0);
  return { world, redis: started };
}

/** Mentions with tokens `q<batch><nn>` (the scripted model repeats the token in its answer). */
function mentions(cluster: CrashWorld, batch: number, count: number): Origin[] {
  return Array.from({ length: count }, (_, index) =>
    cluster.traffic.mention(`q${batch}${String(index).padStart(2, "0")}`),
  );
}

describe("the Redis store goes away (single process)", () => {
  it.each(OUTAGES_MS.map((ms) => [outageLabel(ms), ms] as const))(
    "an outage of %s: intake refuses meanwhile, everything is answered once afterwards",
    { timeout: Math.max(...OUTAGES_MS) + 300_000 },
    async (_label, outageMs) => {
      const { world: cluster, redis: server } = await startWorld(true);
      const before = mentions(cluster, 0, 8);
      const acked = await cluster.traffic.deliverAll(cluster.transport(0), before, { parallel: 8 });
      expect(acked.refused).toEqual([]);
      await waitFor("turns running", () => cluster.stub(0).inFlight.value >= 4 || undefined, 60_000);

      await server.stop();
      const during = mentions(cluster, 1, 4);
      const refusedDuring = await cluster.traffic.deliverAll(cluster.transport(0), during, { parallel: 4 });
      // Nothing sent while the store is down is acknowledged: Slack keeps it and delivers it again.
      expect(refusedDuring.acked).toEqual([]);
      expect(cluster.cli(0)?.stderr).toContain("the store is unavailable");
      await pause(outageMs);
      await server.resume();

      // Slack's retries of what was refused.
      for (const origin of during) {
        expect(await cluster.traffic.deliverUntilAcked(cluster.transport(0), origin)).toBe(true);
      }
      const after = mentions(cluster, 2, 4);
      for (const origin of after) await cluster.traffic.deliverUntilAcked(cluster.transport(0), origin);

      const origins = [...before, ...during, ...after];
      const report = await settleAnswers(cluster.slack.state, origins, shortParts, settleOptions);
      expect(describeReport(report, origins.length), cluster.logs()).toBe(exactlyOnce(origins.length));
      expect(cluster.cli(0)?.running).toBe(true);
    },
  );
});
