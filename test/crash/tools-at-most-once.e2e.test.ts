/**
 * SIGKILL while a tool runs: an HTTP tool called directly, the same tool after `find_tools` attached
 * it (a follow-up run), and an approved `requiresApproval` tool. After the restart each refund is
 * executed exactly once — a retry reaches the service with the same `Idempotency-Key`, so it can
 * dedupe — and the answer arrives without anyone writing a new message (an approval asked again is
 * answered; that is the person deciding, not a new request).
 */
import { afterEach, describe, expect, it } from "vitest";
import { postsFor } from "../support/crash/answers.ts";
import { CrashWorld } from "../support/crash/crash-world.ts";
import { refundDone, refundScript, tokens } from "../support/crash/scripted-answers.ts";
import { pause } from "../support/crash/settle.ts";
import type { Origin } from "../support/crash/slack-traffic.ts";
import { BOT_ID } from "../support/slack/workspace-state.ts";
import { ToolStandIn } from "../support/tools/tool-stand-in.ts";

const THREADS = 5;
const LOCK_TTL_SECONDS = 3;
const APPROVAL_PROMPT = "wants to run `issue_refund`";

let world: CrashWorld | undefined;
let refunds: ToolStandIn | undefined;
afterEach(async () => {
  await world?.close();
  await refunds?.close();
  world = undefined;
  refunds = undefined;
});

const cases = [
  { name: "an HTTP tool called directly", supervisorTools: ["issue_refund"], requiresApproval: false },
  {
    name: "a tool attached by find_tools (follow-up run)",
    supervisorTools: ["find_tools"],
    requiresApproval: false,
  },
  { name: "an approved requiresApproval tool", supervisorTools: ["issue_refund"], requiresApproval: true },
] as const;

describe("SIGKILL during a tool call", () => {
  it.each(cases)(
    "$name: executed exactly once, answered without a new message",
    { timeout: 120_000 },
    async (setup) => {
      refunds = await ToolStandIn.start();
      world = await CrashWorld.start({
        store: "sqlite",
        lockTtlSeconds: LOCK_TTL_SECONDS,
        script: refundScript,
        config: {
          supervisorTools: setup.supervisorTools,
          commandWords: ["approve", "deny", "status"],
          tools: [
            {
              name: "issue_refund",
              description: "refund a payment to a customer",
              url: refunds.url,
              requiresApproval: setup.requiresApproval,
            },
          ],
        },
      });
      // The refund service is slow: every call is held until the crash.
      refunds.holdWhile = () => true;
      const first = await world.startCli();
      const origins = tokens("q", THREADS).map((token) =>
        world!.traffic.mention(token, undefined, "please refund order"),
      );
      await world.traffic.deliverAll(world.transport(), origins);
      const approved = new Map<string, number>();
      const approveWhenAsked = async () => {
        for (const origin of origins) {
          const prompts = botPosts(origin).filter((post) => post.text.includes(APPROVAL_PROMPT)).length;
          if (prompts > (approved.get(origin.token) ?? 0)) {
            approved.set(origin.token, prompts);
            await world!.traffic.deliver(
              world!.transport(),
              world!.traffic.mention("", origin.threadTs, "approve"),
            );
          }
        }
      };
      const heldDeadline = Date.now() + 40_000;
      while (refunds.held.value < THREADS && Date.now() < heldDeadline) {
        if (setup.requiresApproval) await approveWhenAsked();
        await pause(100);
      }
      expect(refunds.held.value, world.logs()).toBe(THREADS);
      await first.kill();
      refunds.release();

      await world.startCli();
      await world.traffic.deliverAll(world.transport(), origins, { retryNum: 1 });
      const deadline = Date.now() + (LOCK_TTL_SECONDS + 10) * 1000;
      while (Date.now() < deadline && !origins.every((origin) => answers(origin) >= 1)) {
        if (setup.requiresApproval) await approveWhenAsked();
        await pause(100);
      }
      await pause((LOCK_TTL_SECONDS + 1) * 1000);

      const outcome = origins.map((origin) => ({
        token: origin.token,
        answers: answers(origin),
        executions: refunds!.executions((call) => call.body.order === origin.token),
      }));
      const expected = origins.map((origin) => ({ token: origin.token, answers: 1, executions: 1 }));
      expect(outcome, world.logs()).toEqual(expected);
      expect(
        refunds.calls.filter((call) => call.idempotencyKey === undefined),
        "tool calls without an Idempotency-Key",
      ).toEqual([]);
    },
  );
});

function botPosts(origin: Origin) {
  return world!.slack.state
    .thread(origin.message.channel, origin.threadTs)
    .filter((post) => post.bot_id === BOT_ID);
}

function answers(origin: Origin): number {
  return postsFor(world!.slack.state, origin).filter((post) => post.text.includes(refundDone(origin.token)))
    .length;
}
