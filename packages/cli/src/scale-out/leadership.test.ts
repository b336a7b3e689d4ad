/**
 * Leader election on real Redis: one leader among campaigners, a standby takes over within one TTL
 * when the leader dies (stops renewing), never while the old leader may still act, fences that only
 * grow, and a clean stop that hands over at once.
 */
import { createMemoryLogger, waitFor } from "@switchboard/core/testing";
import { afterEach, beforeEach, expect, it } from "vitest";
import {
  describeWithRedis,
  removeRedisKeys,
  TEST_REDIS_URL,
  uniqueRedisPrefix,
} from "../../../core/src/store/test-backends.ts";
import { LeaderLease } from "./leader-lease.ts";
import { Leadership, type LeadershipHandlers } from "./leadership.ts";
import { closeLeaseConnection, type LeaseRedis, openLeaseConnection } from "./lease-connection.ts";

const TTL_MS = 600;

interface Campaigner {
  readonly redis: LeaseRedis;
  readonly leadership: Leadership;
  readonly log: string[];
  /** When each election happened, and whether any other campaigner still held the lease then. */
  readonly elections: { at: number; fence: number; othersHolding: boolean }[];
}

describeWithRedis("leader election on Redis", () => {
  let prefix: string;
  let campaigners: Campaigner[];

  beforeEach(() => {
    prefix = uniqueRedisPrefix("leader");
    campaigners = [];
  });
  afterEach(async () => {
    for (const campaigner of campaigners) {
      await campaigner.leadership.stop().catch(() => undefined);
      closeLeaseConnection(campaigner.redis);
    }
    await removeRedisKeys(prefix);
  });

  function campaigner(name: string, handlers: Partial<LeadershipHandlers> = {}): Campaigner {
    const redis = openLeaseConnection(TEST_REDIS_URL, {
      name: "leader-test",
      commandTimeoutMs: 1_000,
      onError: () => undefined,
    });
    const lease = new LeaderLease(redis, `${prefix}leader:matrix`, name);
    const leadership = new Leadership({
      lease,
      name: "matrix receiving",
      ttlMs: TTL_MS,
      logger: createMemoryLogger(),
    });
    const log: string[] = [];
    const elections: Campaigner["elections"] = [];
    const entry: Campaigner = { redis, leadership, log, elections };
    const started = leadership.start({
      elected: async (held) => {
        elections.push({
          at: Date.now(),
          fence: held.fence,
          othersHolding: campaigners.some((other) => other !== entry && other.leadership.holds()),
        });
        log.push("elected");
        await handlers.elected?.(held);
      },
      deposed: async () => {
        log.push("deposed");
        await handlers.deposed?.();
      },
      standby: async () => {
        log.push("standby");
        await handlers.standby?.();
      },
    });
    campaigners.push(entry);
    return Object.assign(entry, { started });
  }

  async function start(name: string, handlers: Partial<LeadershipHandlers> = {}): Promise<Campaigner> {
    const entry = campaigner(name, handlers) as Campaigner & { started: Promise<void> };
    await entry.started;
    return entry;
  }

  it("elects one leader; the others stand by", async () => {
    const first = await start("a");
    const second = await start("b");
    const third = await start("c");
    expect(first.log).toEqual(["elected"]);
    expect(second.log).toEqual(["standby"]);
    expect(third.log).toEqual(["standby"]);
    // Several rounds later, still one leader, renewed in place.
    await new Promise((resolve) => setTimeout(resolve, TTL_MS * 3));
    expect(first.leadership.holds()).toBe(true);
    expect([second, third].some((entry) => entry.leadership.holds())).toBe(false);
    expect(second.log).toEqual(["standby"]);
  });

  it("a standby takes over within one TTL of the leader dying, never while the dead one may still act", async () => {
    const first = await start("a");
    const second = await start("b");
    const firstFence = first.elections[0]?.fence ?? 0;
    // The leader dies: its connection drops, nothing renews the lease.
    const diedAt = Date.now();
    closeLeaseConnection(first.redis);
    await waitFor("the standby's election", () => second.elections.length === 1, TTL_MS * 4);
    const takeover = second.elections[0];
    expect(takeover?.othersHolding).toBe(false);
    expect((takeover?.at ?? 0) - diedAt).toBeLessThanOrEqual(TTL_MS + TTL_MS / 3 + 200);
    expect(takeover?.fence).toBeGreaterThan(firstFence);
    // The old leader finds out by itself and stops its singleton.
    await waitFor("the old leader to stop", () => first.log.includes("deposed"), TTL_MS * 4);
    expect(first.leadership.holds()).toBe(false);
  });

  it("a leader whose lease was taken away (expired and re-taken) stops and stands by", async () => {
    const first = await start("a");
    // Someone else holds the lease now, as after a pause longer than the TTL.
    const intruder = new LeaderLease(first.redis, `${prefix}leader:matrix`, "intruder");
    await first.redis.del(`${prefix}leader:matrix`);
    const held = await intruder.acquire(60_000);
    expect(held).toBeDefined();
    await waitFor("the leader to stop", () => first.log.includes("deposed"), TTL_MS * 3);
    expect(first.log).toEqual(["elected", "deposed", "standby"]);
    expect(first.leadership.holds()).toBe(false);
  });

  it("a clean stop hands over at once, without waiting for the lease to expire", async () => {
    const first = await start("a");
    const second = await start("b");
    await first.leadership.stop();
    const stoppedAt = Date.now();
    await waitFor("the standby's election", () => second.elections.length === 1, TTL_MS * 2);
    // One campaign round (a third of the TTL), not the TTL.
    expect((second.elections[0]?.at ?? 0) - stoppedAt).toBeLessThan(TTL_MS / 3 + 150);
    expect(first.log).toEqual(["elected", "deposed"]);
  });

  it("an elected process that cannot start its singleton gives the lease back for another", async () => {
    let failures = 1;
    const flaky = await start("a", {
      elected: async () => {
        if (failures-- > 0) throw new Error("could not connect");
      },
    }).catch((error: unknown) => error);
    // The first round's failure fails the start: an operator sees bad credentials at once.
    expect(flaky).toBeInstanceOf(Error);
    const other = await start("b");
    expect(other.log).toEqual(["elected"]);
  });
});
