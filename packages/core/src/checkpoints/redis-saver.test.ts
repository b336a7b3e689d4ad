import type { RedisClientType } from "@redis/client";
import { afterAll, beforeAll } from "vitest";
import { RedisSaver } from "./redis-saver.ts";
import {
  connectTestRedis,
  deleteKeysUnder,
  describeWithRedis,
  uniqueTestPrefix,
} from "./redis-test-support.ts";
import { registerCheckpointerValidation } from "./validation-suite.ts";

describeWithRedis("RedisSaver against the test Redis", () => {
  let client: RedisClientType;
  beforeAll(async () => {
    client = await connectTestRedis();
  });
  afterAll(() => client.destroy());

  // A fresh prefix per instance: the suite's list cases count every checkpoint the saver holds.
  registerCheckpointerValidation<RedisSaver>("RedisSaver", (keepCheckpoints) => ({
    createCheckpointer: () =>
      new RedisSaver({ client, keyPrefix: uniqueTestPrefix("checkpoint-validation"), keepCheckpoints }),
    destroyCheckpointer: (saver) => deleteKeysUnder(client, saver.keyPrefix),
  }));
});
