import { type ApprovalPrompt, chunkMarkdown, decisionLine } from "@switchboard/core/adapter";

/** The action ids of our two buttons; a press carries the request id as the button's value. */
export const APPROVE_ACTION = "switchboard_approve";
export const DENY_ACTION = "switchboard_deny";
export const APPROVAL_ACTIONS = new RegExp(`^(${APPROVE_ACTION}|${DENY_ACTION})$`);
/** The block holding the buttons, so a decision can take exactly it away. */
const ACTIONS_BLOCK_ID = "switchboard_approval";

/** Slack refuses section text over 3,000 characters. */
const SECTION_TEXT_LIMIT = 3_000;

export interface SlackBlock {
  readonly type: string;
  readonly block_id?: string;
  readonly [field: string]: unknown;
}

function sections(mrkdwn: string): SlackBlock[] {
  return chunkMarkdown(mrkdwn, SECTION_TEXT_LIMIT).map((text) => ({
    type: "section",
    text: { type: "mrkdwn", text, verbatim: true },
  }));
}

/**
 * The message that asks: its text as sections (a message with blocks shows the blocks, not `text`),
 * then Approve / Deny. Slack shows the buttons to everyone; who may decide is checked on the press.
 */
export function approvalBlocks(mrkdwn: string, prompt: ApprovalPrompt): SlackBlock[] {
  return [
    ...sections(mrkdwn),
    {
      type: "actions",
      block_id: ACTIONS_BLOCK_ID,
      elements: [
        {
          type: "button",
          action_id: APPROVE_ACTION,
          text: { type: "plain_text", text: "Approve" },
          style: "primary",
          value: prompt.requestId,
        },
        {
          type: "button",
          action_id: DENY_ACTION,
          text: { type: "plain_text", text: "Deny" },
          style: "danger",
          value: prompt.requestId,
        },
      ],
    },
  ];
}

/** A prompt decided off its buttons (typed, console): its text, then the outcome and who decided. */
export function decidedPromptBlocks(
  mrkdwn: string,
  decision: { approved: boolean; by: string },
): SlackBlock[] {
  return decidedBlocks(sections(mrkdwn), decision);
}

/** The same message once decided: the buttons give way to the outcome and who decided. */
export function decidedBlocks(
  shown: readonly SlackBlock[],
  decision: { approved: boolean; by: string },
): SlackBlock[] {
  return [
    ...shown.filter((block) => block.block_id !== ACTIONS_BLOCK_ID && block.type !== "context"),
    { type: "context", elements: [{ type: "mrkdwn", text: decisionLine(decision) }] },
  ];
}
