/**
 * A slash command in a cluster: the ingress (a `switchboard start --role ingress` process) takes
 * Slack's request, a worker process runs the command and answers it. Used in a channel the bot is
 * not in, the answer can only go through the command's response_url, which the ingress kept in
 * the shared Redis store.
 */
import { waitFor } from "@switchboard/core/testing";
import { afterEach, expect, it } from "vitest";
import { describeWithRedis } from "../../packages/core/src/store/test-backends.ts";
import { CrashWorld } from "../support/crash/crash-world.ts";
import { answerWith, shortAnswer } from "../support/crash/scripted-answers.ts";
import { slashCommandPayload } from "../support/slack/event-payloads.ts";
import { ALICE, ELSEWHERE } from "../support/slack/workspace-state.ts";

const INGRESS = 0;
const WORKER = 1;

let world: CrashWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describeWithRedis("scale-out: slash commands answered by a worker process", () => {
  it("`/switchboard status` where the bot is not a member: the worker answers through the response_url", {
    timeout: 120_000,
  }, async () => {
    const cluster = await CrashWorld.start({ store: "redis", slots: 2, script: answerWith(shortAnswer) });
    world = cluster;
    await cluster.startCli(INGRESS, { role: "ingress" });
    await cluster.startCli(WORKER, { role: "worker" });

    const triggerId = `${Date.now()}.slash`;
    const delivery = await cluster.transport(INGRESS).deliverSlashCommand(
      slashCommandPayload({
        command: "/switchboard",
        text: "status",
        user: ALICE,
        channel: ELSEWHERE,
        triggerId,
        responseUrl: cluster.slack.api.responseUrl(triggerId, ELSEWHERE, ALICE),
      }),
    );
    expect(delivery.status).toBe(200);

    const answer = await waitFor(
      "the answer through the response_url",
      () => cluster.slack.state.ephemeral[0],
      60_000,
    ).catch((error: unknown) => {
      throw new Error(`${(error as Error).message}\n${cluster.logs()}`);
    });
    expect(answer).toMatchObject({ channel: ELSEWHERE, user: ALICE, via: "response_url" });
    // The status of the user's private conversation in that channel, which the worker read from the store.
    expect(answer.text).toContain("Answering here: *supervisor*.");
    expect(cluster.slack.state.botMessages()).toEqual([]);
  });
});
