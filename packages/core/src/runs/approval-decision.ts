import type { AtomicStore } from "../store/types.ts";
import { CONTINUATION, type RunScheduler } from "./continuations.ts";
import type { RecordedDecision, RequestRecord } from "./request-record.ts";
import type { RequestTracker } from "./request-tracker.ts";

export class NotAwaitingApprovalError extends Error {
  readonly requestId: string;
  constructor(requestId: string) {
    super(`request ${requestId} is not waiting for approval (already decided, superseded or closed)`);
    this.name = "NotAwaitingApprovalError";
    this.requestId = requestId;
  }
}

/** Decisions are claimed once per request for this long: far beyond any approval timeout. */
const CLAIM_TTL_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * Records the decision and queues the run that resumes the request in its own thread (and shows
 * the decision on the prompt, unless it was pressed there). Claimed
 * atomically first, so two operators (or an operator and the user) deciding at once resume it once.
 */
export async function decideApproval(
  deps: { tracker: RequestTracker; scheduler: RunScheduler; atomic: AtomicStore },
  request: RequestRecord,
  decision: Omit<RecordedDecision, "at">,
  now: number,
): Promise<void> {
  if (request.status !== "awaiting_approval") throw new NotAwaitingApprovalError(request.id);
  const parentRunId = request.runs.at(-1)?.runId ?? "";
  if (!(await deps.atomic.setIfAbsent(`approval-decided:${request.id}:${parentRunId}`, "1", CLAIM_TTL_MS)))
    throw new NotAwaitingApprovalError(request.id);
  await deps.tracker.setStatus(request.id, "active", { decision: { ...decision, at: now } });
  await deps.scheduler.enqueueContinuation(request.conversationKey, {
    // One resume per waiting run, however often a decision is retried after a crash.
    id: `${request.id}:approval:${parentRunId}`,
    requestId: request.id,
    type: CONTINUATION.approval,
    data: {
      approved: decision.approved,
      by: decision.by,
      parentRunId,
      // A press shows its outcome on the pressed message itself; a typed or console decision is
      // shown by the resume, queued durable work: a crash before it is shown shows it on the retry.
      ...(decision.via === "button" ? {} : { showOnPrompt: true }),
    },
  });
}
