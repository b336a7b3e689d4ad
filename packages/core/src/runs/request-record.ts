import type { ConversationRef } from "../conversation/ref.ts";
import type { ApprovalRequest } from "../team/team-graph.ts";

/** Who decided on a waiting action, and how; kept on the request record. */
export interface RecordedDecision {
  readonly approved: boolean;
  /** The name shown in the thread and on the record. */
  readonly by: string;
  /** Where the decision was made: `chat` (/approve, /deny), `button` (or reaction) or `console`. */
  readonly via: "chat" | "button" | "console";
  readonly at: number;
}

export type RequestStatus =
  | "active"
  | "awaiting_approval"
  | "awaiting_external"
  | "completed"
  | "failed"
  | "timed_out";
export type RunTrigger =
  | "user_message"
  | "tools_attached"
  | "approval"
  | "webhook"
  | "retry"
  | "task"
  | "schedule";
export type RunStatus = "running" | "completed" | "interrupted" | "failed" | "cancelled";

export interface RunRecord {
  readonly runId: string;
  readonly triggeredBy: RunTrigger;
  readonly parentRunId?: string;
  readonly status: RunStatus;
  readonly startedAt: number;
  readonly endedAt?: number;
  readonly error?: string;
  /** The webhook event that reported this (external) run's end: a replay of it is a duplicate, not a conflict. */
  readonly closedByEvent?: string;
  /** The webhook event that reported this (external) run as triggered: likewise. */
  readonly openedByEvent?: string;
}

/** One user message and every run it caused, wherever and whenever they ran. */
export interface RequestRecord {
  readonly id: string;
  readonly conversationKey: string;
  /** Where answers go: the origin's conversation (its thread root in the path) and message. */
  readonly origin: {
    readonly conversation: ConversationRef;
    readonly messageId: string;
    readonly authorId: string;
    /**
     * What answers reply to when it is not the origin message: a run the bot started itself (a
     * schedule's) has no message of its own — it replies to its thread's message, or to none (null).
     */
    readonly replyTo?: string | null;
  };
  readonly agent: string | null;
  readonly status: RequestStatus;
  readonly createdAt: number;
  readonly updatedAt: number;
  /** When the current open status began: notices and timeouts count from here. */
  readonly waitingSince: number;
  readonly noticeSent: boolean;
  readonly runs: readonly RunRecord[];
  readonly approval?: ApprovalRequest;
  /** Who approved or denied the waiting action, once someone did. */
  readonly decision?: RecordedDecision;
  /** Why it closed, when that is not obvious from its runs ("superseded by a newer message"). */
  readonly note?: string;
}

export const OPEN_STATUSES: ReadonlySet<RequestStatus> = new Set([
  "active",
  "awaiting_approval",
  "awaiting_external",
]);

/** The message answers reply to (see `origin.replyTo`); undefined: a new message. */
export function replyTargetOf(origin: RequestRecord["origin"]): string | undefined {
  return origin.replyTo === undefined ? origin.messageId : (origin.replyTo ?? undefined);
}

/** `{ replyTo }` for a delivery, or nothing when there is no message to reply to. */
export function withReplyTo(replyTo: string | undefined): { replyTo?: string } {
  return replyTo === undefined ? {} : { replyTo };
}

export const isOpen = (request: RequestRecord) => OPEN_STATUSES.has(request.status);

/** A new status; entering an open status restarts the waiting clock and allows a new notice. */
export function withStatus(request: RequestRecord, status: RequestStatus, now: number): RequestRecord {
  const restarts = OPEN_STATUSES.has(status) && status !== request.status;
  return {
    ...request,
    status,
    updatedAt: now,
    ...(restarts ? { waitingSince: now, noticeSent: false } : {}),
  };
}

export function withRun(request: RequestRecord, run: RunRecord, now: number): RequestRecord {
  const others = request.runs.filter((existing) => existing.runId !== run.runId);
  return { ...request, runs: [...others, run], updatedAt: now };
}

/** One line per run for /status. */
export function describeRequest(request: RequestRecord, now: number): string {
  const age = Math.round((now - request.createdAt) / 1000);
  const runs = request.runs
    .map((run) => `${run.triggeredBy}${run.parentRunId ? ` after ${run.parentRunId}` : ""}: ${run.status}`)
    .join("; ");
  return `- request ${request.id} (${request.status.replace("_", " ")}, ${age}s): ${runs || "no runs yet"}`;
}
