import { isOpen, type RequestRecord } from "./request-record.ts";

export interface RequestTimeouts {
  readonly noticeAfterSeconds: number;
  readonly timeoutSeconds: number;
  readonly approvalTimeoutSeconds: number;
  readonly retentionDays: number;
}

/** What the sweeper owes an open request once it has waited long enough. */
export type DueAction = "notice" | "time-out" | "nothing";

const limitSeconds = (request: RequestRecord, timeouts: RequestTimeouts) =>
  request.status === "awaiting_approval" ? timeouts.approvalTimeoutSeconds : timeouts.timeoutSeconds;

/** The waiting limit that applies to `request`, in seconds (approvals wait longer). */
export function timeoutSecondsFor(request: RequestRecord, timeouts: RequestTimeouts): number {
  return limitSeconds(request, timeouts);
}

/**
 * The rule the sweeper applies: one "still working" notice after `noticeAfterSeconds` (never for
 * approvals), closed as timed out after the status's limit.
 */
export function dueAction(request: RequestRecord, timeouts: RequestTimeouts, now: number): DueAction {
  if (!isOpen(request)) return "nothing";
  const waitedSeconds = (now - request.waitingSince) / 1000;
  if (waitedSeconds >= limitSeconds(request, timeouts)) return "time-out";
  const approval = request.status === "awaiting_approval";
  if (!approval && !request.noticeSent && waitedSeconds >= timeouts.noticeAfterSeconds) return "notice";
  return "nothing";
}

/**
 * When the sweeper next owes an open request something — its score in the due index. Handling a
 * due request always moves it past `now` (a notice moves it to the timeout, a timeout closes it),
 * so a sweep that reads what is due never meets the same request twice.
 */
export function nextDueAt(request: RequestRecord, timeouts: RequestTimeouts): number {
  const limitAt = request.waitingSince + limitSeconds(request, timeouts) * 1000;
  if (request.status === "awaiting_approval" || request.noticeSent) return limitAt;
  return Math.min(limitAt, request.waitingSince + timeouts.noticeAfterSeconds * 1000);
}
