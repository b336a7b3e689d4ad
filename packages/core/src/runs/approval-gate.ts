import type { ApprovalAnswer, ApprovalDecider, ApprovalPress } from "../conversation/approvals.ts";
import type { Clock } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";
import type { AtomicStore } from "../store/types.ts";
import { decideApproval, NotAwaitingApprovalError } from "./approval-decision.ts";
import type { RunScheduler } from "./continuations.ts";
import type { RecordedDecision, RequestRecord } from "./request-record.ts";
import type { RequestTracker } from "./request-tracker.ts";

export interface ApprovalGateOptions {
  readonly tracker: RequestTracker;
  readonly scheduler: () => RunScheduler;
  readonly atomic: AtomicStore;
  readonly clock: Clock;
  /** Platform user ids that may decide anyone's waiting action. */
  readonly admins: readonly string[];
  readonly logger: Logger;
}

/**
 * Who may decide a waiting action, and deciding it once: the one path behind /approve, /deny and
 * the platforms' Approve / Deny buttons and reactions. Only the person who asked, or an admin,
 * decides; the claim in `decideApproval` makes a second press (here or on another instance) a no-op.
 */
export class ApprovalGate implements ApprovalDecider {
  readonly #options: ApprovalGateOptions;

  constructor(options: ApprovalGateOptions) {
    this.#options = options;
  }

  /** A button press or reaction on the prompt of one request. */
  async decide(press: ApprovalPress): Promise<ApprovalAnswer> {
    const request = await this.#options.tracker.get(press.requestId);
    // A user id only names a person on its own platform: a press from elsewhere decides nothing.
    if (!request || request.origin.conversation.platform !== press.platform) return { kind: "not-waiting" };
    return this.#decide(request, press.actor, press.approved, "button");
  }

  /** The operator console (an admin by definition); throws NotAwaitingApprovalError when decided before. */
  async decideAsOperator(request: RequestRecord, decision: { approved: boolean; by: string }): Promise<void> {
    const { tracker, atomic, clock } = this.#options;
    await decideApproval(
      { tracker, scheduler: this.#options.scheduler(), atomic },
      request,
      { ...decision, via: "console" },
      clock.now(),
    );
  }

  /** /approve or /deny typed in a conversation: decides its latest waiting action; undefined if none. */
  async decideWaitingIn(
    key: string,
    actor: { id: string; name: string },
    approved: boolean,
  ): Promise<ApprovalAnswer | undefined> {
    const waiting = (await this.#options.tracker.openIn(key))
      .filter((request) => request.status === "awaiting_approval")
      .at(-1);
    return waiting ? this.#decide(waiting, actor, approved, "chat") : undefined;
  }

  async #decide(
    request: RequestRecord,
    actor: { id: string; name: string },
    approved: boolean,
    via: RecordedDecision["via"],
  ): Promise<ApprovalAnswer> {
    if (request.status !== "awaiting_approval") return notWaiting(request);
    const { tracker, admins, atomic, clock } = this.#options;
    if (actor.id !== request.origin.authorId && !admins.includes(actor.id))
      return { kind: "not-allowed", requesterId: request.origin.authorId };
    const scheduler = this.#options.scheduler();
    try {
      await decideApproval(
        { tracker, scheduler, atomic },
        request,
        { approved, by: actor.name, via },
        clock.now(),
      );
    } catch (error) {
      if (!(error instanceof NotAwaitingApprovalError)) throw error;
      // Lost the claim to a press decided a moment earlier; its record may still be being written.
      return notWaiting(await tracker.get(request.id));
    }
    return { kind: "decided", approved, by: actor.name };
  }
}

function notWaiting(request: RequestRecord | undefined): ApprovalAnswer {
  const decision = request?.decision;
  return decision
    ? { kind: "not-waiting", decided: { approved: decision.approved, by: decision.by } }
    : { kind: "not-waiting" };
}
