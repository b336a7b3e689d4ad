import { randomBytes } from "node:crypto";
import { MemorySaver } from "@langchain/langgraph";
import { openStore, type Store } from "@switchboard/core";
import { waitFor } from "@switchboard/core/testing";
import { afterEach, expect, it } from "vitest";
import {
  describeWithRedis,
  removeRedisKeys,
  TEST_REDIS_URL,
  uniqueRedisPrefix,
} from "../packages/core/src/store/test-backends.ts";
import { SlackAdapter } from "../packages/slack/src/slack-adapter.ts";
import { APPROVED_ANSWER, type Refunds, startApprovalTeam } from "./support/approval-scenario.ts";
import { blockActionsPayload } from "./support/slack/event-payloads.ts";
import { HttpEventTransport } from "./support/slack/event-transport.ts";
import { FakeSlack } from "./support/slack/fake-slack.ts";
import { ALICE, BOT_USER_ID, GENERAL, type StoredMessage } from "./support/slack/workspace-state.ts";

const hasButtons = (message: StoredMessage) =>
  (message.blocks ?? []).some((block) => block.type === "actions");

describeWithRedis("Slack approval buttons on two instances sharing one Redis", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it("the same press delivered to both instances at once is decided and run once", async () => {
    const prefix = uniqueRedisPrefix("slack-approvals");
    const slack = await FakeSlack.start({ transport: "http" });
    cleanups.push(() => slack.close());
    cleanups.push(async () => void (await removeRedisKeys(prefix)));
    const refunds: Refunds = { amounts: [] };
    // One deployment: the store and the graph's checkpoints are shared; each instance has its own connections.
    const checkpointer = new MemorySaver();
    const instance = async () => {
      const store: Store = await openStore(`${TEST_REDIS_URL}/?prefix=${prefix}`);
      const adapter = new SlackAdapter(slack.adapterConfig());
      const team = await startApprovalTeam(adapter, { store, refunds, checkpointer });
      cleanups.push(async () => {
        await team.stop();
        await store.close();
      });
      return { adapter, team };
    };
    const first = await instance();
    const second = await instance();
    slack.connectHttp(() => first.adapter.port);

    await slack.say(GENERAL, `<@${BOT_USER_ID}> refund my 40 EUR`);
    const prompt = await waitFor("the approval prompt with buttons", () =>
      slack.state.botMessages().find(hasButtons),
    );
    const payload = blockActionsPayload({
      message: prompt,
      actionId: "switchboard_approve",
      user: ALICE,
      responseUrl: slack.api.responseUrl("press", prompt.channel, ALICE),
      triggerId: `${Date.now()}.${randomBytes(4).toString("hex")}`,
    });
    // Slack does not do this; a load balancer retrying, or a replayed request, would.
    const toSecond = new HttpEventTransport(`http://127.0.0.1:${second.adapter.port}/slack/events`);
    const deliveries = await Promise.all([
      slack.http.deliverInteraction(payload),
      toSecond.deliverInteraction(payload),
    ]);
    expect(deliveries.map((delivery) => delivery.status)).toEqual([200, 200]);

    await waitFor("the answer after approval", () =>
      slack.state.botMessages().some((message) => message.text === APPROVED_ANSWER),
    );
    await Promise.all([first.team.engine.idle(), second.team.engine.idle()]);
    expect(refunds.amounts).toEqual([40]);
    expect(slack.state.botMessages().filter((message) => message.text === APPROVED_ANSWER)).toHaveLength(1);
    expect(hasButtons(prompt)).toBe(false);
    // The instance that lost the claim told the presser so, privately.
    expect(slack.state.ephemeral.map((message) => message.user)).toEqual([ALICE]);
  });
});
