import type { OutboundFile, PreparedAttachments } from "../attachments/stored-attachment.ts";
import type { InterimMessages } from "../engine/responder.ts";
import type { TurnEventListener } from "../streaming/turn-events.ts";
import type { ApprovalDecision, ApprovalRequest } from "./team-graph.ts";

export interface RunInput {
  readonly key: string;
  readonly userId: string;
  readonly signal: AbortSignal;
  /** The user's text; absent when resuming. */
  readonly text?: string;
  /** Resumes a run waiting for approval. */
  readonly resume?: ApprovalDecision;
  readonly requestId?: string;
  /** Names the run; the same when a run that died (crash, shutdown) is run again. */
  readonly runId?: string;
  /** What caused the run (request tracking's `triggeredBy`), for the run-steps log. */
  readonly trigger?: string;
  /**
   * This run was started before and did not finish: model replies and tool results it recorded are
   * reused instead of asking again (no tool runs twice).
   */
  readonly resumed?: boolean;
  /** Sees the answer as it is written, and progress lines. */
  readonly onEvent?: TurnEventListener;
  /** The command prefix that works where the answer is shown (limit messages name `reset` with it). */
  readonly commandPrefix?: string;
  /** The files of the user's message, read (text and image references join the user's turn). */
  readonly attachments?: PreparedAttachments;
  /** Where `send_message` posts; absent: agents are told they cannot send messages from this run. */
  readonly interim?: InterimMessages;
}

export type RunOutcome =
  | {
      readonly kind: "answered";
      readonly text: string;
      readonly agent: string;
      /** The conversation's live history after the turn, ≈ tokens (`estimateTokens`). */
      readonly historyTokens?: number;
      /** Files the agents' tools returned in this run, to send after the text. */
      readonly files?: readonly OutboundFile[];
    }
  | { readonly kind: "awaiting-approval"; readonly approval: ApprovalRequest; readonly agent: string }
  | { readonly kind: "stopped-for-tool"; readonly tool: string; readonly agent: string }
  /** A person has taken the thread over: the message was recorded, the bot says nothing. */
  | { readonly kind: "with-person"; readonly agent: string };

/** What the thread reads for an outcome when nothing tracks the request. */
export function outcomeText(outcome: RunOutcome, commandPrefix = "/"): string {
  switch (outcome.kind) {
    case "answered":
      return outcome.text;
    case "awaiting-approval":
      return approvalPrompt(outcome.approval, commandPrefix);
    case "stopped-for-tool":
    case "with-person":
      return "";
  }
}

/** `commandPrefix`: the one that works where the prompt is shown (`!` on Matrix and Slack). */
export function approvalPrompt(approval: ApprovalRequest, commandPrefix = "/"): string {
  const args = Object.keys(approval.args).length > 0 ? ` with ${JSON.stringify(approval.args)}` : "";
  return `**${approval.agent}** wants to run \`${approval.tool}\`${args}. Reply \`${commandPrefix}approve\` to let it, or \`${commandPrefix}deny\` to refuse.`;
}
