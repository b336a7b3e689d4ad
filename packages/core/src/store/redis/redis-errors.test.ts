import { connect, createServer, type Socket } from "node:net";
import { createClient, SimpleError } from "@redis/client";
import { expect, it } from "vitest";
import { waitFor } from "../../testing/wait.ts";
import { isStoreOutage, StoreFullError } from "../errors.ts";
import { describeWithRedis, TEST_REDIS_URL, uniqueRedisPrefix } from "../test-backends.ts";
import { connectRedis } from "./redis-connection.ts";
import { isRedisConnectionError } from "./redis-errors.ts";

/**
 * Starts a BLPOP on `client` that never returns and waits until Redis shows it blocking, so the
 * command is on the wire. `failure` settles with what the command failed with (undefined if it
 * returned).
 */
async function blockedOnServer(
  client: Awaited<ReturnType<typeof connectRedis>>,
  key: string,
): Promise<{ readonly failure: Promise<unknown> }> {
  const id = await client.clientId();
  const failure = client.blPop(key, 0).then(
    () => undefined,
    (error: unknown) => error,
  );
  const observer = createClient({ url: TEST_REDIS_URL });
  await observer.connect();
  try {
    await waitFor("the command to block on the server", async () =>
      (await observer.sendCommand<string>(["CLIENT", "LIST", "ID", String(id)])).includes("cmd=blpop")
        ? true
        : undefined,
    );
  } finally {
    observer.destroy();
  }
  return { failure };
}

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
      const { failure } = await blockedOnServer(client, `${prefix}never`);
      await admin.sendCommand(["CLIENT", "KILL", "ID", String(id)]);
      const dropped = await failure;
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

  it("a command on the wire when the connection is reset (ECONNRESET) is an outage; another reset is not", async () => {
    // Between the client and Redis, a relay that can reset the client's connection, as a killed
    // server, a proxy or the network does (a reset, where CLIENT KILL above closes cleanly).
    const target = new URL(TEST_REDIS_URL);
    const clientSides: Socket[] = [];
    const relay = createServer((clientSide) => {
      const serverSide = connect(Number(target.port || 6379), target.hostname);
      clientSides.push(clientSide);
      clientSide.pipe(serverSide).on("error", () => serverSide.destroy());
      serverSide.pipe(clientSide).on("error", () => clientSide.destroy());
      clientSide.on("error", () => serverSide.destroy());
      serverSide.on("error", () => clientSide.resetAndDestroy());
      clientSide.on("close", () => serverSide.destroy());
    });
    await new Promise<void>((resolve) => relay.listen(0, "127.0.0.1", resolve));
    const address = relay.address();
    if (address === null || typeof address === "string") throw new Error("the relay has no port");
    const reported: unknown[] = [];
    const client = await connectRedis({
      clientUrl: `redis://127.0.0.1:${address.port}`,
      host: "test Redis through a relay",
      clientName: "connection-reset-test",
      onBackgroundError: (error) => reported.push(error),
      startupError: (cause) => new Error("no test Redis", { cause }),
    });
    const prefix = uniqueRedisPrefix("connection-reset");
    try {
      // Reset only once the command blocks on the server: it is on the wire, waiting for its reply.
      const { failure } = await blockedOnServer(client, `${prefix}never`);
      for (const socket of clientSides) socket.resetAndDestroy();
      const reset = await failure;
      expect(reset).toBeInstanceOf(Error);
      expect((reset as NodeJS.ErrnoException).code).toBe("ECONNRESET");
      expect(isStoreOutage(reset)).toBe(true);
      expect(isStoreOutage(new Error("the turn's read failed", { cause: reset }))).toBe(true);
      expect(reported.length).toBeGreaterThan(0);
      // The same kind of error from anything else (a model's connection) is not the store's.
      const elsewhere = Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET", syscall: "read" });
      expect(isStoreOutage(elsewhere)).toBe(false);
      expect(isStoreOutage(new TypeError("fetch failed", { cause: elsewhere }))).toBe(false);
    } finally {
      client.destroy();
      await new Promise<void>((resolve) => relay.close(() => resolve()));
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
