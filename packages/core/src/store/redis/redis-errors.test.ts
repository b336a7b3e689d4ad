import { createClient, SimpleError } from "@redis/client";
import { expect, it } from "vitest";
import { waitFor } from "../../testing/wait.ts";
import { isStoreOutage, StoreFullError } from "../errors.ts";
import { describeWithRedis, TEST_REDIS_URL, uniqueRedisPrefix } from "../test-backends.ts";
import { connectRedis } from "./redis-connection.ts";
import { isRedisConnectionError } from "./redis-errors.ts";

describeWithRedis("Redis errors as store outages", () => {
  it("a command on the wire when the connection drops is an outage; an error reply is not", async () => {
    const prefix = uniqueRedisPrefix("connection-drop");
    const client = await connectRedis({
      clientUrl: TEST_REDIS_URL,
      host: "test Redis",
      clientName: "connection-drop-test",
      onBackgroundError: () => {},
      startupError: (cause) => new Error("no test Redis", { cause }),
    });
    const admin = createClient({ url: TEST_REDIS_URL });
    await admin.connect();
    try {
      const id = await client.clientId();
      // Blocks on the server: the command is on the wire until the connection goes.
      const waiting = client.blPop(`${prefix}never`, 0).then(
        () => undefined,
        (error: unknown) => error,
      );
      await waitFor("the command to block on the server", async () =>
        (await admin.sendCommand<string>(["CLIENT", "LIST", "ID", String(id)])).includes("cmd=blpop")
          ? true
          : undefined,
      );
      await admin.sendCommand(["CLIENT", "KILL", "ID", String(id)]);
      const dropped = await waiting;
      expect(dropped).toBeInstanceOf(Error);
      expect(isStoreOutage(dropped)).toBe(true);
      expect(isStoreOutage(new Error("the turn's write failed", { cause: dropped }))).toBe(true);

      // The client is back: a command the server refuses is the command's failure, not an outage.
      await client.set(`${prefix}text`, "not a number");
      const refused = await client.incr(`${prefix}text`).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(Error);
      expect(isStoreOutage(refused)).toBe(false);
      await client.del(`${prefix}text`);
    } finally {
      client.destroy();
      admin.destroy();
    }
  });
});

it("a full disk is an outage, and so is an error caused by one", () => {
  const full = new StoreFullError({ cause: new Error("database or disk is full") });
  expect(isStoreOutage(full)).toBe(true);
  expect(isStoreOutage(new Error("checkpoint write failed", { cause: full }))).toBe(true);
  expect(isStoreOutage(new Error("the model answered 500"))).toBe(false);
});

it("a server that cannot serve yet (loading its data after a restart, a failover) is an outage; other replies are not", () => {
  for (const reply of [
    "LOADING Redis is loading the dataset in memory",
    "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.",
    "READONLY You can't write against a read only replica.",
    "TRYAGAIN Multiple keys request during rehashing of slot",
    "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.",
  ])
    expect(isRedisConnectionError(new SimpleError(reply)), reply).toBe(true);
  for (const reply of ["ERR value is not an integer or out of range", "WRONGTYPE Operation against a key"])
    expect(isRedisConnectionError(new SimpleError(reply)), reply).toBe(false);
});
