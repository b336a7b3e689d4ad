/**
 * Calls into the leader on real BullMQ and Redis: answered while a leader serves, an error of the
 * leader's comes back as the caller's, and a call nobody takes fails in bounded time and is taken
 * back (a leader elected afterwards never works on it).
 */
import { createMemoryLogger } from "@switchboard/core/testing";
import { afterEach, beforeEach, expect, it } from "vitest";
import {
  describeWithRedis,
  removeRedisKeys,
  TEST_REDIS_URL,
  uniqueRedisPrefix,
} from "../../../core/src/store/test-backends.ts";
import { type BullConnection, bullConnectionFor } from "./bullmq-connection.ts";
import { LeaderCallError, LeaderCallServer, LeaderCalls } from "./leader-calls.ts";

describeWithRedis("calls into the leader on BullMQ", () => {
  let prefix: string;
  let bull: BullConnection;
  let calls: LeaderCalls;
  let server: LeaderCallServer | undefined;
  const logger = createMemoryLogger();
  const answered: unknown[] = [];

  beforeEach(() => {
    prefix = uniqueRedisPrefix("leader-calls");
    bull = bullConnectionFor(`${TEST_REDIS_URL}/?prefix=${prefix}`, "/");
    calls = new LeaderCalls(bull, () => undefined, 1_500);
    answered.length = 0;
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
    await calls.close();
    await removeRedisKeys(prefix);
  });

  const serve = (answer: (request: unknown) => Promise<unknown>) => {
    server = new LeaderCallServer({ bull, platform: "matrix", answer, logger });
  };

  it("brings back the leader's answer", async () => {
    serve(async (request) => {
      answered.push(request);
      return { ciphertext: `sealed ${(request as { text: string }).text}` };
    });
    await expect(calls.call("matrix", { text: "hello" })).resolves.toEqual({ ciphertext: "sealed hello" });
    await expect(calls.call("matrix", { text: "again" })).resolves.toEqual({ ciphertext: "sealed again" });
    expect(answered).toEqual([{ text: "hello" }, { text: "again" }]);
  });

  it("fails with the leader's error when the leader cannot answer", async () => {
    serve(async () => {
      throw new Error("room !r:hs is not encrypted");
    });
    const call = calls.call("matrix", { text: "hello" });
    await expect(call).rejects.toThrow(LeaderCallError);
    await expect(call).rejects.toThrow(/room !r:hs is not encrypted/);
  });

  it("fails in bounded time when no process leads, and takes the call back", async () => {
    await expect(calls.call("matrix", { text: "nobody hears" })).rejects.toThrow(
      /the process that leads matrix receiving did not answer: none leads now/,
    );
    // A leader elected afterwards answers new calls only: the taken-back one never reaches it.
    serve(async (request) => {
      answered.push(request);
      return "ok";
    });
    await expect(calls.call("matrix", { text: "later" })).resolves.toBe("ok");
    expect(answered).toEqual([{ text: "later" }]);
  });
});
