import type { App, BlockAction, ButtonAction } from "@slack/bolt";
import type { WebClient } from "@slack/web-api";
import { type ApprovalDecider, decisionLine, type Logger } from "@switchboard/core/adapter";
import { SLACK_PLATFORM } from "../conversations.ts";
import { authorshipShown } from "../send/agent-face.ts";
import { explainSlackError } from "../slack-api-errors.ts";
import { APPROVAL_ACTIONS, APPROVE_ACTION, decidedBlocks, type SlackBlock } from "./approval-blocks.ts";

export interface ApprovalActionOptions {
  readonly decider: () => ApprovalDecider | undefined;
  readonly client: WebClient;
  readonly logger: Logger;
}

/**
 * Approve / Deny presses (`block_actions`, signed and acknowledged like events by the intake).
 * The decision is core's; here it is shown: the pressed message loses its buttons for the outcome
 * (chat.update), and whoever may not decide — or pressed too late — is told privately (ephemeral).
 */
export function registerApprovalActions(app: App, options: ApprovalActionOptions): void {
  app.action<BlockAction<ButtonAction>>(
    { type: "block_actions", action_id: APPROVAL_ACTIONS },
    async ({ ack, body, action, respond }) => {
      await ack();
      const decider = options.decider();
      if (!decider) {
        options.logger.warn("an approval button was pressed, but approvals are not wired to this adapter");
        return;
      }
      const user = body.user;
      const channel = body.channel?.id ?? body.container.channel_id;
      const message = body.message;
      const tell = (text: string) =>
        privately({ respond, client: options.client, channel, user: user.id, text });
      const answer = await decider.decide({
        requestId: action.value ?? "",
        approved: action.action_id === APPROVE_ACTION,
        platform: SLACK_PLATFORM,
        actor: { id: user.id, name: user.name ?? user.username ?? user.id },
      });
      const show = async (decision: { approved: boolean; by: string }) => {
        if (!message || typeof channel !== "string") return;
        const blocks = decidedBlocks((message.blocks ?? []) as SlackBlock[], decision);
        const text = `${String(message.text ?? "")}\n${decisionLine(decision)}`;
        if (body.container.is_ephemeral) await respond({ replace_original: true, text, blocks });
        else {
          // An agent's prompt keeps its name and icon: Slack drops them from an update without them.
          const authorship = authorshipShown({ username: message.username, icons: message.icons });
          const update = { channel, ts: String(message.ts), text, blocks };
          await (authorship
            ? options.client.apiCall("chat.update", { ...update, ...authorship })
            : options.client.chat.update(update)
          ).catch((error: unknown) => explainSlackError("chat.update", error));
        }
      };
      switch (answer.kind) {
        case "decided":
          await show({ approved: answer.approved, by: `<@${user.id}>` });
          return;
        case "not-allowed":
          await tell(`Only <@${answer.requesterId}> (or an admin) can approve or deny this.`);
          return;
        case "not-waiting":
          // Decided elsewhere (typed, another press, another instance): make the message say so too.
          if (answer.decided) await show(answer.decided);
          await tell(
            answer.decided
              ? `This was already decided: ${decisionLine(answer.decided)}.`
              : "This is no longer waiting for a decision.",
          );
      }
    },
  );
}

async function privately(input: {
  respond: (message: {
    response_type: "ephemeral";
    replace_original: false;
    text: string;
  }) => Promise<unknown>;
  client: WebClient;
  channel: string | undefined;
  user: string;
  text: string;
}): Promise<void> {
  if (input.channel) {
    await input.client.chat
      .postEphemeral({ channel: input.channel, user: input.user, text: input.text })
      .catch((error: unknown) => explainSlackError("chat.postEphemeral", error));
    return;
  }
  await input.respond({ response_type: "ephemeral", replace_original: false, text: input.text });
}
