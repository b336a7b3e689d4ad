/**
 * SIGKILL between a request's timeout and its notice, on the real CLI against the Slack stand-in.
 * A refund waits for approval nobody gives; the request sweeper times it out and tells the thread.
 * The process is killed while that notice's post is held:
 *
 * - before Slack acted: the post never reaches Slack (the held request is dropped);
 * - after Slack acted: Slack has the notice, the process never heard back.
 *
 * After a restart on the same store the notice is in the thread exactly once and the request is
 * closed (a typed /approve finds nothing waiting). Without the outbox a request marked timed out
 * before its notice was posted lost the notice for good.
 */
import { waitFor } from "@switchboard/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { CrashWorld, type StoreKind } from "../support/crash/crash-world.ts";
import { refundScript } from "../support/crash/scripted-answers.ts";
import { pause } from "../support/crash/settle.ts";
import { Gauge } from "../support/model/model-stub.ts";
import type { WebApiStandIn } from "../support/slack/web-api-stand-in.ts";
import { BOT_ID } from "../support/slack/workspace-state.ts";
import { ToolStandIn } from "../support/tools/tool-stand-in.ts";

const LOCK_TTL_SECONDS = 3;
const APPROVAL_SECONDS = 2;
const APPROVAL_PROMPT = "wants to run `issue_refund`";
const NOTICE = "Nobody approved the waiting action";
const POST = "chat.postMessage";

const isNotice = (args: Record<string, unknown>) =>
  typeof args.text === "string" && args.text.includes(NOTICE);

/** Holds the notice's post: before Slack acts (then drops it) or after (then lets the reply go). */
function holdNotice(api: WebApiStandIn, point: "before" | "after") {
  const held = new Gauge();
  const waiting: { resolve: () => void; reject: (error: Error) => void }[] = [];
  let released = false;
  const hold = () => {
    held.add(1);
    return new Promise<void>((resolve, reject) => waiting.push({ resolve, reject }));
  };
  if (point === "before")
    api.requestGate = (method, args) => (released || method !== POST || !isNotice(args) ? undefined : hold());
  else
    api.responseGate = (call) =>
      released || call.method !== POST || !call.reply.ok || !isNotice(call.args) ? undefined : hold();
  return {
    held,
    release() {
      released = true;
      api.requestGate = undefined;
      api.responseGate = undefined;
      for (const entry of waiting.splice(0))
        if (point === "before") entry.reject(new Error("the process that sent this is gone"));
        else entry.resolve();
    },
  };
}

let world: CrashWorld | undefined;
let refunds: ToolStandIn | undefined;
afterEach(async () => {
  await world?.close();
  await refunds?.close();
  world = undefined;
  refunds = undefined;
});

describe.each<StoreKind>(["sqlite", "redis"])(
  "SIGKILL between a request's timeout and its notice (%s)",
  (store) => {
    it.each(["before", "after"] as const)(
      "killed while the notice's post is held (%s Slack acted): the notice is posted once, the request stays closed",
      { timeout: 90_000 },
      async (point) => {
        refunds = await ToolStandIn.start();
        world = await CrashWorld.start({
          store,
          lockTtlSeconds: LOCK_TTL_SECONDS,
          script: refundScript,
          config: {
            supervisorTools: ["issue_refund"],
            commandWords: ["approve"],
            tools: [
              {
                name: "issue_refund",
                description: "refund a payment to a customer",
                url: refunds.url,
                requiresApproval: true,
              },
            ],
            extra: { requests: { approvalTimeoutSeconds: APPROVAL_SECONDS, sweepIntervalSeconds: 0.5 } },
          },
        });
        const { api, state } = world.slack;
        const gate = holdNotice(api, point);
        const first = await world.startCli();
        const origin = world.traffic.mention("q001", undefined, "please refund order");
        await world.traffic.deliverAll(world.transport(), [origin]);
        const botPosts = () =>
          state.thread(origin.message.channel, origin.threadTs).filter((post) => post.bot_id === BOT_ID);
        const failWithLogs = (error: unknown) => {
          throw new Error(`${String(error)}\n${world?.logs()}`);
        };
        await waitFor(
          "the approval prompt",
          () => botPosts().some((post) => post.text.includes(APPROVAL_PROMPT)),
          30_000,
        ).catch(failWithLogs);
        await waitFor("the notice's post to be held", () => gate.held.value >= 1, 30_000).catch(failWithLogs);
        await first.kill();
        gate.release();

        await world.startCli();
        const notices = () => botPosts().filter((post) => post.text.includes(NOTICE));
        await waitFor("the notice in the thread", () => notices()[0], (LOCK_TTL_SECONDS + 15) * 1000).catch(
          failWithLogs,
        );
        // Several sweeps and recovery rounds: long enough for a second notice to show.
        await pause((LOCK_TTL_SECONDS + 1) * 1000);
        expect(notices(), world.logs()).toHaveLength(1);

        // The request is closed: nothing waits for approval any more, and the refund never ran.
        await world.traffic.deliver(world.transport(), world.traffic.mention("", origin.threadTs, "approve"));
        await waitFor(
          "the answer to approve",
          () => botPosts().some((post) => post.text.includes("Nothing in this conversation is waiting")),
          20_000,
        ).catch(failWithLogs);
        expect(refunds.executions(() => true)).toBe(0);
      },
    );
  },
);
