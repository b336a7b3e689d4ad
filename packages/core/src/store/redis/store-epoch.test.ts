/**
 * The epoch key on the test Redis: a process that finds its epoch gone draws the line and writes
 * it into the new epoch; a process that started after the loss (and claimed a fresh epoch without
 * a line) adopts the line at its next check. Driven by explicit checks, not timers.
 */
import { createClient } from "@redis/client";
import { afterEach, expect, it } from "vitest";
import { describeWithRedis, removeRedisKeys, TEST_REDIS_URL, uniqueRedisPrefix } from "../test-backends.ts";
import type { RedisConnection } from "./redis-connection.ts";
import { type DataLoss, StoreEpoch } from "./store-epoch.ts";

const clients: RedisConnection[] = [];
const epochs: StoreEpoch[] = [];
let prefix = "";

afterEach(async () => {
  for (const epoch of epochs.splice(0)) epoch.stop();
  for (const client of clients.splice(0)) await client.close();
  await removeRedisKeys(prefix);
});

async function connect(): Promise<RedisConnection> {
  const client: RedisConnection = createClient({ url: TEST_REDIS_URL });
  await client.connect();
  clients.push(client);
  return client;
}

async function begin(key: string, losses: DataLoss[]): Promise<StoreEpoch> {
  const epoch = await StoreEpoch.begin(await connect(), key, (loss) => losses.push(loss), 3_600_000);
  epochs.push(epoch);
  return epoch;
}

describeWithRedis("StoreEpoch", () => {
  it("shares one epoch between processes and sees no loss while it stays", async () => {
    prefix = uniqueRedisPrefix("epoch");
    const losses: DataLoss[] = [];
    const first = await begin(`${prefix}epoch`, losses);
    const second = await begin(`${prefix}epoch`, losses);
    await first.verify();
    await second.verify();
    expect(losses).toEqual([]);
    expect([first.dataLostBefore, second.dataLostBefore]).toEqual([undefined, undefined]);
  });

  it("draws the line once the data is gone, and a process started after the loss adopts it", async () => {
    prefix = uniqueRedisPrefix("epoch");
    const key = `${prefix}epoch`;
    const seen: DataLoss[] = [];
    const before = await begin(key, seen);
    const admin = await connect();
    await admin.del(key);

    // A process started after the loss finds no epoch and claims a fresh one, without a line.
    const later: DataLoss[] = [];
    const after = await begin(key, later);
    expect(after.dataLostBefore).toBeUndefined();

    // No dropped connection was seen: the line is the moment the check found the data gone.
    const checkStarted = Date.now();
    await before.verify();
    const checkEnded = Date.now();
    expect(before.dataLosses).toBe(1);
    expect(seen).toHaveLength(1);
    expect(before.dataLostBefore).toBeGreaterThanOrEqual(checkStarted);
    expect(before.dataLostBefore).toBeLessThanOrEqual(checkEnded);

    await after.verify();
    expect(after.dataLostBefore).toBe(before.dataLostBefore);
    // Adopting a line is not a loss of its own data.
    expect(after.dataLosses).toBe(0);
    expect(later).toEqual([]);

    // Checked again, the shared epoch holds: no second loss.
    await before.verify();
    expect(before.dataLosses).toBe(1);
  });
});
