/**
 * An ingress's adapter for a platform whose inbound connection exists once per bot, on real Redis:
 * only the leader receives, a standby delivers send-only, events reaching a deposed leader are
 * refused (left to the platform side for the new leader), and a takeover starts receiving.
 */

import type { InboundMessage } from "@switchboard/core";
import { createMemoryLogger, RecordingAdapter, waitFor } from "@switchboard/core/testing";
import { afterEach, beforeEach, expect, it } from "vitest";
import {
  describeWithRedis,
  removeRedisKeys,
  TEST_REDIS_URL,
  uniqueRedisPrefix,
} from "../../../core/src/store/test-backends.ts";
import { LeaderLease } from "./leader-lease.ts";
import { leaderOnly } from "./leader-only-adapter.ts";
import { Leadership } from "./leadership.ts";
import { closeLeaseConnection, type LeaseRedis, openLeaseConnection } from "./lease-connection.ts";

const TTL_MS = 600;

/** A platform with a singleton inbound connection and a send-only form; counts how each was started. */
class SingletonPlatform extends RecordingAdapter {
  readonly exclusiveInbound = true;
  receiving = 0;
  sendOnly = 0;
  stops = 0;

  override async start(sink: (message: InboundMessage) => Promise<void>): Promise<void> {
    this.receiving += 1;
    await super.start(sink);
  }

  async startSendOnly(): Promise<void> {
    this.sendOnly += 1;
  }

  override async stop(): Promise<void> {
    this.stops += 1;
    await super.stop();
  }
}

describeWithRedis("receiving only while leading", () => {
  let prefix: string;
  const connections: LeaseRedis[] = [];
  const stops: (() => Promise<void>)[] = [];

  beforeEach(() => {
    prefix = uniqueRedisPrefix("leader-only");
  });
  afterEach(async () => {
    for (const stop of stops.splice(0)) await stop().catch(() => undefined);
    for (const redis of connections.splice(0)) closeLeaseConnection(redis);
    await removeRedisKeys(prefix);
  });

  async function ingress(name: string) {
    const redis = openLeaseConnection(TEST_REDIS_URL, {
      name: "leader-only-test",
      commandTimeoutMs: 1_000,
      onError: () => undefined,
    });
    connections.push(redis);
    const platform = new SingletonPlatform({ platform: "matrix" });
    const lease = new LeaderLease(redis, `${prefix}leader:matrix`, name);
    // The work only a leader does (answering other processes' calls): open while it receives.
    const leaderWork = { opened: 0, closed: 0 };
    const adapter = leaderOnly(
      platform,
      new Leadership({ lease, name: "matrix receiving", ttlMs: TTL_MS, logger: createMemoryLogger() }),
      () => {
        leaderWork.opened += 1;
        return {
          close: async () => {
            leaderWork.closed += 1;
          },
        };
      },
    );
    const received: string[] = [];
    await adapter.start(async (message) => {
      received.push(message.text);
    });
    stops.push(() => adapter.stop());
    return { redis, platform, adapter, received, leaderWork };
  }

  it("the leader receives; the standby delivers through the HTTP API alone", async () => {
    const leader = await ingress("a");
    const standby = await ingress("b");
    expect([leader.platform.receiving, leader.platform.sendOnly]).toEqual([1, 0]);
    expect([standby.platform.receiving, standby.platform.sendOnly]).toEqual([0, 1]);
    expect([leader.leaderWork, standby.leaderWork]).toEqual([
      { opened: 1, closed: 0 },
      { opened: 0, closed: 0 },
    ]);
    await leader.platform.send("hello");
    expect(leader.received).toEqual(["hello"]);
    // The standby can still post (send-only), as a worker does.
    await standby.adapter.post({ conversation: { platform: "matrix", path: ["!r"] }, text: "hi" });
    expect(standby.platform.posts).toHaveLength(1);
  });

  it("refuses events once the lease may have passed on; the standby takes over and receives", async () => {
    const leader = await ingress("a");
    const standby = await ingress("b");
    closeLeaseConnection(leader.redis); // the leader can no longer renew
    await waitFor("the standby to take over", () => standby.platform.receiving === 1, TTL_MS * 4);
    // The old leader's connection may still deliver until it notices; nothing is handed on.
    const refused = await leader.platform.send("late").catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(Error);
    expect(leader.received).toEqual([]);
    await waitFor("the old leader to stop receiving", () => leader.platform.stops >= 1, TTL_MS * 4);
    // Its leader work ended with it; the new leader's began.
    expect([leader.leaderWork, standby.leaderWork]).toEqual([
      { opened: 1, closed: 1 },
      { opened: 1, closed: 0 },
    ]);
    await standby.platform.send("after takeover");
    expect(standby.received).toEqual(["after takeover"]);
    // The standby left its send-only form before receiving.
    expect(standby.platform.stops).toBe(1);
  });
});
