import { waitFor } from "@switchboard/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { SlackAdapter } from "../packages/slack/src/slack-adapter.ts";
import { APPROVED_ANSWER, DENIED_ANSWER, startApprovalTeam } from "./support/approval-scenario.ts";
import { FakeSlack, type Transport } from "./support/slack/fake-slack.ts";
import { ALICE, BOB, BOT_USER_ID, GENERAL, type StoredMessage } from "./support/slack/workspace-state.ts";

const APPROVE = "switchboard_approve";
const DENY = "switchboard_deny";

const hasButtons = (message: StoredMessage) =>
  (message.blocks ?? []).some((block) => block.type === "actions");
const contextLine = (message: StoredMessage) =>
  (message.blocks ?? [])
    .filter((block) => block.type === "context")
    .flatMap((block) => block.elements as { text: string }[])
    .map((element) => element.text)
    .join("\n");

describe.each<Transport>(["http", "socket"])(
  "Slack approval buttons over %s (real Bolt against the stand-in)",
  (transport) => {
    let slack: FakeSlack;
    let team: Awaited<ReturnType<typeof startApprovalTeam<SlackAdapter>>> | undefined;
    afterEach(async () => {
      await team?.stop();
      await slack?.close();
    });

    async function askForARefund() {
      slack = await FakeSlack.start({ transport });
      const adapter = new SlackAdapter(slack.adapterConfig());
      if (transport === "http") slack.connectHttp(() => adapter.port);
      team = await startApprovalTeam(adapter, { admins: [] });
      const root = await slack.say(GENERAL, `<@${BOT_USER_ID}> refund my 40 EUR`);
      const prompt = await waitFor("the approval prompt with buttons", () =>
        slack.state.botMessages().find(hasButtons),
      );
      return { root, prompt, team };
    }

    it("Approve by the requester: the action runs once, the buttons give way to who approved, the answer follows", async () => {
      const { root, prompt, team } = await askForARefund();
      expect(prompt.thread_ts).toBe(root.ts);
      expect(prompt.text).toContain("wants to run");
      const delivered = await slack.pressButton(prompt, APPROVE, ALICE);
      expect(delivered.status).toBe(200);
      await waitFor("the answer after approval", () =>
        slack.state.botMessages().some((message) => message.text === APPROVED_ANSWER),
      );
      await team.engine.idle();
      expect(team.refunds.amounts).toEqual([40]);
      expect(hasButtons(prompt)).toBe(false);
      expect(contextLine(prompt)).toBe(`✅ Approved by <@${ALICE}>`);
      expect(slack.state.ephemeral).toEqual([]);
    });

    it("Deny: the action never runs, the prompt says who denied, the agent answers without it", async () => {
      const { prompt, team } = await askForARefund();
      await slack.pressButton(prompt, DENY, ALICE);
      await waitFor("the answer after denial", () =>
        slack.state.botMessages().some((message) => message.text === DENIED_ANSWER),
      );
      await team.engine.idle();
      expect(team.refunds.amounts).toEqual([]);
      expect(contextLine(prompt)).toBe(`❌ Denied by <@${ALICE}>`);
    });

    it("someone else pressing is told privately who may decide, and nothing happens", async () => {
      const { root, prompt, team } = await askForARefund();
      await slack.pressButton(prompt, APPROVE, BOB);
      const refusal = await waitFor("the private refusal", () => slack.state.ephemeral[0]);
      expect(refusal).toMatchObject({ user: BOB, channel: GENERAL, via: "chat.postEphemeral" });
      expect(refusal.text).toBe(`Only <@${ALICE}> (or an admin) can approve or deny this.`);
      await team.engine.idle();
      expect(team.refunds.amounts).toEqual([]);
      expect(hasButtons(prompt)).toBe(true);
      const request = await team.tracking.tracker.byOrigin(`${root.channel}:${root.ts}`);
      expect(request?.status).toBe("awaiting_approval");
    });

    it("decided by typing: the buttons give way to the outcome all the same", async () => {
      const { root, prompt, team } = await askForARefund();
      await slack.say(GENERAL, `<@${BOT_USER_ID}> approve`, { threadTs: root.ts });
      await waitFor("the answer after approval", () =>
        slack.state.botMessages().some((message) => message.text === APPROVED_ANSWER),
      );
      await team.engine.idle();
      expect(team.refunds.amounts).toEqual([40]);
      expect(hasButtons(prompt)).toBe(false);
      expect(contextLine(prompt)).toBe(`✅ Approved by ${ALICE}`);
      expect(prompt.text).toContain("wants to run");
    });

    it("pressed twice at once: decided and run once, the second press is told it was already decided", async () => {
      const { prompt, team } = await askForARefund();
      await Promise.all([
        slack.pressButton(prompt, APPROVE, ALICE),
        slack.pressButton(prompt, APPROVE, ALICE),
      ]);
      await waitFor("the answer after approval", () =>
        slack.state.botMessages().some((message) => message.text === APPROVED_ANSWER),
      );
      await team.engine.idle();
      expect(team.refunds.amounts).toEqual([40]);
      expect(slack.state.botMessages().filter((message) => message.text === APPROVED_ANSWER)).toHaveLength(1);
      expect(slack.state.ephemeral.map((message) => [message.user, message.text])).toEqual([
        // The loser of the claim may look before the winner has written who decided.
        [
          ALICE,
          expect.stringMatching(
            /^(This was already decided: ✅ Approved by .+|This is no longer waiting for a decision\.)$/,
          ),
        ],
      ]);
      expect(contextLine(prompt)).toMatch(/^✅ Approved by /);
    });
  },
);
