/**
 * The runs a request continues with after its first — tools attached, an approval decided, an
 * outside job reporting back — and the engine's side that queues them. Kept apart from the
 * TrackedTeam that runs them, so the records, the approval decision and the webhook receiver that
 * queue continuations depend on this small file, not on the team (no import circles).
 */
import type { Deliverer } from "../delivery/deliverer.ts";
import type { Continuation } from "../engine/responder.ts";
import type { Notices } from "../outbox/notices.ts";

/** What tracking needs from the engine, bound once the engine exists. */
export interface RunScheduler {
  readonly deliverer: Deliverer;
  /** Notices that answer no queued work (a request's "still working" and "timed out"). */
  readonly notices: Notices;
  /** False when a continuation with the same id was queued before. */
  enqueueContinuation(key: string, continuation: Continuation): Promise<boolean>;
}

export const CONTINUATION = {
  toolsAttached: "tools_attached",
  approval: "approval",
  externalCompleted: "external_completed",
  externalFailed: "external_failed",
} as const;
