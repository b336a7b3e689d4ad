import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { openStore } from "@switchboard/core";
import { describe, expect, it } from "vitest";
import { openCheckpointer } from "../packages/core/src/checkpoints/open-checkpointer.ts";
import {
  removeRedisKeys,
  TEST_REDIS_AVAILABLE,
  TEST_REDIS_URL,
  uniqueRedisPrefix,
} from "../packages/core/src/store/test-backends.ts";
import { startTeamHarness } from "./support/team-harness.ts";

const handoffToBilling = [{ name: "transfer_to_billing", args: {} }];

describe("the active agent survives restarts and is shared by every instance", () => {
  it("a new engine over the same SQLite file routes the follow-up to the same specialist", async () => {
    const url = `sqlite://${join(await mkdtemp(join(tmpdir(), "switchboard-sticky-")), "switchboard.db")}`;
    const firstStore = await openStore(url);
    const firstCheckpoints = await openCheckpointer(url);
    const sup = fakeModel().respondWithTools(handoffToBilling);
    const first = await startTeamHarness({
      store: firstStore,
      checkpointer: firstCheckpoints.saver,
      models: { sup, bill: fakeModel().respond(new AIMessage("invoice 7 is paid")), tech: fakeModel() },
    });
    await first.say("is invoice 7 paid?");
    await first.stop();
    await firstCheckpoints.close();
    await firstStore.close();

    const store = await openStore(url);
    const checkpoints = await openCheckpointer(url);
    const supAfter = fakeModel();
    const billAfter = fakeModel().respond(new AIMessage("and invoice 8 too"));
    const second = await startTeamHarness({
      store,
      checkpointer: checkpoints.saver,
      models: { sup: supAfter, bill: billAfter, tech: fakeModel() },
    });
    expect((await second.say("and invoice 8?")).join("\n")).toMatch(/billing .*and invoice 8 too/);
    expect([supAfter.callCount, billAfter.callCount]).toEqual([0, 1]);
    // The restarted specialist still sees the conversation so far.
    expect(billAfter.calls[0]?.messages.map((m) => String(m.content))).toContain("invoice 7 is paid");
    await second.stop();
    await checkpoints.close();
    await store.close();
  });

  it.skipIf(!TEST_REDIS_AVAILABLE)(
    "two engines sharing the real Redis route the follow-up to the same specialist",
    async () => {
      const prefix = uniqueRedisPrefix("sticky");
      const url = `${TEST_REDIS_URL}?prefix=${prefix}`;
      const storeA = await openStore(url);
      const storeB = await openStore(url);
      const checkpointsA = await openCheckpointer(url, { redisPrefix: `${prefix}checkpoint:` });
      const checkpointsB = await openCheckpointer(url, { redisPrefix: `${prefix}checkpoint:` });
      const supA = fakeModel().respondWithTools(handoffToBilling);
      const supB = fakeModel();
      const billB = fakeModel().respond(new AIMessage("billing on instance B"));
      const a = await startTeamHarness({
        store: storeA,
        checkpointer: checkpointsA.saver,
        models: { sup: supA, bill: fakeModel().respond(new AIMessage("billing on A")), tech: fakeModel() },
      });
      const b = await startTeamHarness({
        store: storeB,
        checkpointer: checkpointsB.saver,
        models: { sup: supB, bill: billB, tech: fakeModel() },
      });
      await a.say("refund please");
      expect((await b.say("how long will it take?")).join("\n")).toMatch(/billing .*billing on instance B/);
      expect([supB.callCount, billB.callCount]).toEqual([0, 1]);
      for (const h of [a, b]) await h.stop();
      for (const c of [checkpointsA, checkpointsB]) await c.close();
      for (const s of [storeA, storeB]) await s.close();
      await removeRedisKeys(prefix);
    },
  );
});
