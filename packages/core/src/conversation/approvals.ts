/**
 * Approve / Deny as the platforms show them: buttons on Slack and Discord, reactions on Matrix.
 * Adapters render an `ApprovalPrompt` on the message that asks and report presses as an
 * `ApprovalPress`; who may decide, and deciding once, stay in core (the `ApprovalDecider`).
 */

/** Carried by the message that asks for approval: which request a press decides, and whose it is. */
export interface ApprovalPrompt {
  readonly requestId: string;
  /** Platform user id of the person who asked (they, or an admin, may decide). */
  readonly requesterId: string;
}

/** Someone pressed Approve or Deny (or reacted ✅ / ❌) on a prompt. */
export interface ApprovalPress {
  readonly requestId: string;
  readonly approved: boolean;
  /** The platform the press came from: a user id only means something on its own platform. */
  readonly platform: string;
  readonly actor: { readonly id: string; readonly name: string };
}

/** What became of a press; the adapter shows it the platform's way. */
export type ApprovalAnswer =
  /** This press decided: the buttons give way to the outcome and who decided. */
  | { readonly kind: "decided"; readonly approved: boolean; readonly by: string }
  /** Someone else pressed: they alone are told (privately where the platform can). */
  | { readonly kind: "not-allowed"; readonly requesterId: string }
  /** Decided before (a second press, another instance), superseded or closed: nothing happened. */
  | {
      readonly kind: "not-waiting";
      readonly decided?: { readonly approved: boolean; readonly by: string };
    };

export interface ApprovalDecider {
  decide(press: ApprovalPress): Promise<ApprovalAnswer>;
}

/** The one line a decided prompt shows instead of its buttons. */
export function decisionLine(decision: { approved: boolean; by: string }): string {
  return decision.approved ? `✅ Approved by ${decision.by}` : `❌ Denied by ${decision.by}`;
}
