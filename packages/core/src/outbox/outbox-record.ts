import type { OutboundFile } from "../attachments/stored-attachment.ts";
import type { ApprovalPrompt } from "../conversation/approvals.ts";
import type { ConversationRef } from "../conversation/ref.ts";

/** One answer (or notice) a unit of work sends, split into the chunks its platform takes. */
export interface OutboxDelivery {
  /**
   * Names a delivery that a re-run may or may not ask for again (an interim message an agent sent
   * with a tool whose call the run journal replays): found by this key, never by its position.
   */
  readonly key?: string;
  readonly conversation: ConversationRef;
  readonly chunks: readonly string[];
  readonly replyTo?: string;
  readonly recipientId?: string;
  readonly agent?: string;
  /**
   * Messages the answer was streamed into while it was written (platform ids): chunk n replaces
   * the n-th by an edit instead of being posted.
   */
  readonly placeholders?: readonly string[];
  /** The answer asks for approval: its last chunk carries the Approve / Deny controls. */
  readonly approval?: ApprovalPrompt;
  /** Platform ids of the chunks posted so far, in order. */
  readonly posted: readonly string[];
  /**
   * The chunk whose post was started but not confirmed: after a crash it may or may not be on the
   * platform, so recovery asks the platform (or re-posts with the same idempotency key).
   */
  readonly attempting?: number;
  /** Why the rest of this delivery was given up (after retries), for the log and /status. */
  readonly failed?: string;
  /** Files sent after the chunks, each uploaded, then shown. */
  readonly files?: readonly OutboxFile[];
}

/**
 * One file of a delivery. `upload` is written as soon as the platform has the bytes and before the
 * message that shows them is posted (`attempting`), so a retry after a crash looks for that message,
 * and posts it from the same upload if it is not there: never a second copy.
 */
export interface OutboxFile {
  readonly file: OutboundFile;
  readonly upload?: string;
  /** The post showing `upload` was started and not confirmed. */
  readonly attempting?: boolean;
  /** Platform id of the message showing the file. */
  readonly posted?: string;
  /** Why it was given up (after retries), or why it cannot be sent here. */
  readonly failed?: string;
}

/**
 * Everything one unit of queued work has decided to say, written before anything is posted. The
 * record outlives a crash: the retried unit delivers what is left instead of computing it again.
 */
export interface OutboxRecord {
  readonly workId: string;
  readonly deliveries: readonly OutboxDelivery[];
  /** The turn's answer is among the deliveries: a retry delivers, it does not run the team again. */
  readonly answered: boolean;
}

export function idempotencyKeyOf(workId: string, delivery: number, chunk: number): string {
  return `${workId}:${delivery}:${chunk}`;
}
