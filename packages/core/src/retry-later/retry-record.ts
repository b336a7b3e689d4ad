import type { InboundMessage } from "../conversation/messages.ts";
import type { RetryLaterSettings } from "../models/spec.ts";

/**
 * What became of a turn the model could not answer: `waiting` for its next later try, or ended —
 * answered, superseded by a newer message in its thread, cancelled by `/stop`, given up after its
 * tries, or failed for another reason on a try.
 */
export type RetryStatus = "waiting" | "answered" | "superseded" | "cancelled" | "gave_up" | "failed";

/** One turn's later retry. Named by the failed work's id: its outbox holds the countdown message. */
export interface RetryRecord {
  readonly id: string;
  /** The conversation the turn belongs to (its queue). */
  readonly key: string;
  /** The message being answered (without the platform's raw event). */
  readonly message: InboundMessage;
  /** What the turn answered: the message text, or several collected texts. */
  readonly text: string;
  /** The next later try (from 1). */
  readonly attempt: number;
  /** Later tries in all. */
  readonly attempts: number;
  /** When the next try is queued. */
  readonly dueAt: number;
  readonly status: RetryStatus;
  readonly createdAt: number;
  /** The countdown posted when the turn failed: how a try finds that message in the failed work's outbox. */
  readonly firstNotice: string;
}

/** Each later try waits twice as long as the one before: 1, 2, 4 minutes for a first delay of 60 s. */
export function delayBeforeTry(settings: RetryLaterSettings, attempt: number): number {
  return Math.round(settings.firstDelaySeconds * 1000 * 2 ** (attempt - 1));
}

/** "45 s", "2 min", "3 h": the wait, as a person reads it. */
export function formatWait(ms: number): string {
  const seconds = Math.max(1, Math.round(ms / 1000));
  if (seconds < 90) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 90) return `${minutes} min`;
  return `${Math.round(minutes / 60)} h`;
}

/** The message a waiting retry shows in place of the failure. */
export function countdownText(waitMs: number, commandPrefix = "/"): string {
  return `The model is not answering — trying again in ${formatWait(waitMs)}. (\`${commandPrefix}stop\` cancels; a new message replaces this one.)`;
}

export function gaveUpText(attempts: number): string {
  const tries = attempts === 1 ? "one more try" : `${attempts} more tries`;
  return `The model is still not answering after ${tries}. Please ask again later.`;
}

export const SUPERSEDED_TEXT =
  "_The model was not answering; your newer message replaced this one and is answered instead._";

export const CANCELLED_TEXT = "_The model was not answering; stopped — this will not be tried again._";

/** Is the work with this id one of a retry's tries (its continuation's work id)? */
export const tryContinuationId = (id: string, attempt: number) => `retry-later:${id}:${attempt}`;
