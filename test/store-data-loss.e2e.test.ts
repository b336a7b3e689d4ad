/**
 * Redis restarts without its data (no persistence): the dedupe marks go with it, so a platform
 * delivering an answered message again would get a second answer. The epoch key notices the loss
 * on reconnect; messages sent before the connection dropped are refused from then on, by this
 * process and by one started after the loss; messages sent after it are answered once. Real Matrix
 * adapter (matrix-bot-sdk) against the homeserver stand-in, the real Engine, the Redis store on a
 * Redis of the test's own.
 */
import { openStore, type Store } from "@switchboard/core";
import { waitFor } from "@switchboard/core/testing";
import { afterEach, expect, it } from "vitest";
import { RestartableRedis } from "./services/restartable-redis.ts";
import { createWorld, type MatrixWorld, type RunningBot, startBot } from "./support/matrix/bot-fixture.ts";
import { relatesOf } from "./support/matrix/events.ts";

let world: MatrixWorld | undefined;
let redis: RestartableRedis | undefined;
let bot: RunningBot | undefined;
const stores: Store[] = [];

afterEach(async () => {
  await bot?.stop();
  await world?.homeserver.close();
  for (const store of stores.splice(0)) await store.close();
  await redis?.close();
  bot = undefined;
  world = undefined;
  redis = undefined;
});

it("after Redis lost its data, answers nothing twice and everything sent afterwards once", {
  timeout: 120_000,
}, async () => {
  redis = await RestartableRedis.start({ keepsData: false });
  if (!redis) throw new Error("redis-server is not installed");
  const url = `${redis.url}/?prefix=data-loss:`;
  const store = await openStore(url);
  stores.push(store);
  const matrix = await createWorld();
  world = matrix;
  const running = await startBot(matrix, store);
  bot = running;
  const answersTo = (id: string) =>
    matrix.homeserver
      .eventsFrom(matrix.bot)
      .filter((event) => relatesOf(event)["m.in_reply_to"]?.event_id === id);

  const first = matrix.homeserver.userSends(matrix.dm, matrix.alice, {
    msgtype: "m.text",
    body: "first question",
  });
  await waitFor("the first answer", () => answersTo(first).length === 1 || undefined);
  const firstMessage = running.outcomes.find((entry) => entry.message.id === first)?.message;
  if (!firstMessage) throw new Error("the first message never reached the engine");

  await redis.stop();
  await redis.resume();
  await waitFor("the loss to be noticed", () => (store.health?.dataLosses ?? 0) >= 1 || undefined, 30_000);

  // The platform delivers the answered message again (a sync started afresh): its dedupe mark is gone.
  expect(await running.engine.accept(firstMessage)).toEqual({ accepted: false, reason: "before-data-loss" });
  // A process started after the loss (a standby taking over) keeps the same line.
  const later = await openStore(url);
  stores.push(later);
  expect(later.health?.dataLostBefore).toBe(store.health?.dataLostBefore);

  const second = matrix.homeserver.userSends(matrix.dm, matrix.alice, {
    msgtype: "m.text",
    body: "second question",
  });
  await waitFor("the second answer", () => answersTo(second).length === 1 || undefined, 30_000);
  await running.engine.idle();
  expect(answersTo(first)).toHaveLength(1);
  expect(answersTo(second)).toHaveLength(1);
  expect(running.responder.turns.map((turn) => turn.message.id)).toEqual([first, second]);
});
