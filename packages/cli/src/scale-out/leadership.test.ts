/**
 * Leader election on real Redis: one leader among campaigners, a standby takes over within one TTL
 * when the leader dies (stops renewing), never while the old leader may still act, fences that only
 * grow, and a clean stop that hands over at once.
 *
 * The campaigners' clocks and rounds are fake (`Date`, `setInterval`): each test moves them a round
 * at a time and waits for every round to finish, so a loaded machine cannot make a renewal late.
 * Redis keeps its own clock, so the lease's TTL there is far longer than any test; a lease lapsing
 * is the test expiring the key at the moment the fake clock says it would.
 */
import { createMemoryLogger } from "@switchboard/core/testing";
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import {
  describeWithRedis,
  removeRedisKeys,
  TEST_REDIS_URL,
  uniqueRedisPrefix,
} from "../../../core/src/store/test-backends.ts";
import { LeaderLease } from "./leader-lease.ts";
import { Leadership, type LeadershipHandlers } from "./leadership.ts";
import { closeLeaseConnection, type LeaseRedis, openLeaseConnection } from "./lease-connection.ts";

const TTL_MS = 60_000;
/** How often each campaigner runs a round: a third of the TTL (see Leadership). */
const ROUND_MS = TTL_MS / 3;

interface Campaigner {
  readonly redis: LeaseRedis;
  readonly leadership: Leadership;
  readonly log: string[];
  /** When each election happened (fake clock), and whether any other campaigner still held the lease then. */
  readonly elections: { at: number; fence: number; othersHolding: boolean }[];
  /** Campaign rounds finished after the first. */
  rounds: number;
  stopped: boolean;
}

/** Polls `check` on the real clock (the fake one does not move by itself); the deadline only ends a hung test. */
async function until(what: string, check: () => boolean): Promise<void> {
  const deadline = performance.now() + 20_000;
  while (!check()) {
    if (performance.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

describeWithRedis("leader election on Redis", () => {
  let prefix: string;
  let campaigners: Campaigner[];

  beforeEach(() => {
    prefix = uniqueRedisPrefix("leader");
    campaigners = [];
    vi.useFakeTimers({ toFake: ["Date", "setInterval", "clearInterval"] });
  });
  afterEach(async () => {
    for (const campaigner of campaigners) {
      await campaigner.leadership.stop().catch(() => undefined);
      closeLeaseConnection(campaigner.redis);
    }
    vi.useRealTimers();
    await removeRedisKeys(prefix);
  });

  /** Moves the fake clock one round on and waits until every campaigner still running finished it. */
  async function round(): Promise<void> {
    const running = campaigners.filter((entry) => !entry.stopped);
    const before = running.map((entry) => entry.rounds);
    await vi.advanceTimersByTimeAsync(ROUND_MS);
    await until("every campaigner's round", () =>
      running.every((entry, index) => entry.rounds > (before[index] ?? 0)),
    );
  }

  function campaigner(name: string, handlers: Partial<LeadershipHandlers> = {}): Campaigner {
    const redis = openLeaseConnection(TEST_REDIS_URL, {
      name: `leader-test-${name}`,
      commandTimeoutMs: 5_000,
      onError: () => undefined,
    });
    const lease = new LeaderLease(redis, `${prefix}leader:matrix`, name);
    const log: string[] = [];
    const elections: Campaigner["elections"] = [];
    const leadership = new Leadership({
      lease,
      name: "matrix receiving",
      ttlMs: TTL_MS,
      logger: createMemoryLogger(),
      onRound: () => {
        entry.rounds += 1;
      },
    });
    const entry: Campaigner = { redis, leadership, log, elections, rounds: 0, stopped: false };
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
    for (let rounds = 0; rounds < 4; rounds++) await round();
    expect(first.leadership.holds()).toBe(true);
    expect([second, third].some((entry) => entry.leadership.holds())).toBe(false);
    expect(second.log).toEqual(["standby"]);
    expect(third.log).toEqual(["standby"]);
  });

  it("a standby takes over within one TTL of the leader dying, never while the dead one may still act", async () => {
    const first = await start("a");
    const second = await start("b");
    const firstFence = first.elections[0]?.fence ?? 0;
    // The leader dies: its connection drops, nothing renews the lease (last renewed now).
    const diedAt = Date.now();
    closeLeaseConnection(first.redis);
    for (let elapsed = 0; elapsed < TTL_MS; elapsed += ROUND_MS) await round();
    // A whole TTL later the lease is still in Redis: nobody took it, and the dead leader, unable
    // to renew, counted itself deposed before its lease could lapse.
    expect(second.elections).toEqual([]);
    expect(first.log).toEqual(["elected", "deposed", "standby"]);
    expect(first.leadership.holds()).toBe(false);
    // Redis lets the lease lapse now (its TTL since the last renewal).
    await second.redis.del(`${prefix}leader:matrix`);
    await round();
    const takeover = second.elections[0];
    expect(takeover?.othersHolding).toBe(false);
    expect((takeover?.at ?? Number.POSITIVE_INFINITY) - diedAt).toBeLessThanOrEqual(TTL_MS + ROUND_MS);
    expect(takeover?.fence).toBeGreaterThan(firstFence);
    expect(second.leadership.holds()).toBe(true);
  });

  it("a leader whose lease was taken away (expired and re-taken) stops and stands by", async () => {
    const first = await start("a");
    // Someone else holds the lease now, as after a pause longer than the TTL.
    const intruder = new LeaderLease(first.redis, `${prefix}leader:matrix`, "intruder");
    await first.redis.del(`${prefix}leader:matrix`);
    const held = await intruder.acquire(TTL_MS);
    expect(held).toBeDefined();
    await round();
    expect(first.log).toEqual(["elected", "deposed", "standby"]);
    expect(first.leadership.holds()).toBe(false);
  });

  it("a clean stop hands over at once, without waiting for the lease to expire", async () => {
    const first = await start("a");
    const second = await start("b");
    await first.leadership.stop();
    first.stopped = true;
    const stoppedAt = Date.now();
    await round();
    // One campaign round (a third of the TTL), not the TTL.
    expect(second.log).toEqual(["standby", "elected"]);
    expect((second.elections[0]?.at ?? Number.POSITIVE_INFINITY) - stoppedAt).toBeLessThanOrEqual(ROUND_MS);
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
