import type { PostedMessage } from "../conversation/messages.ts";
import type { Deliverer } from "../delivery/deliverer.ts";
import type { Outbox } from "../outbox/outbox.ts";
import type { Logger } from "../runtime/logger.ts";
import { type RetryRecord, tryContinuationId } from "./retry-record.ts";

/** What a retry reaches its thread through: the engine's outbox and deliverer, once it exists. */
export interface RetryDelivery {
  readonly outbox: Outbox;
  readonly deliverer: Deliverer;
}

/**
 * The countdown of a retry: the messages the failed turn posted its notice in, read from that
 * turn's outbox (the one record that knows what was posted, crash or not). Undefined when the
 * failed work's last delivery is not the notice — a re-run of that work after a crash was
 * answered after all, and the retry has nothing left to do.
 */
export async function countdownOf(
  outbox: Outbox,
  record: RetryRecord,
): Promise<readonly PostedMessage[] | undefined> {
  const origin = await outbox.open(record.id);
  const deliveries = origin.recordedDeliveries();
  const last = deliveries.at(-1);
  if (!last || last.chunks[0] !== record.firstNotice) return undefined;
  // A /stop that cancelled the turn while it posted the countdown: the post landed, unrecorded.
  return origin.landed(deliveries.length - 1);
}

/** Whether the retry's current try already has its answer recorded (a crash came before its record said so). */
export async function currentTryAnswered(outbox: Outbox, record: RetryRecord): Promise<boolean> {
  return (await outbox.open(`c:${tryContinuationId(record.id, record.attempt)}`)).answered;
}

/**
 * Edits the countdown to say why it ended (superseded, stopped). An edit outside the thread's
 * work: repeating it is harmless, and a failure leaves the countdown as it was (logged).
 */
export async function editCountdown(
  delivery: RetryDelivery,
  record: RetryRecord,
  text: string,
  logger: Logger,
): Promise<void> {
  try {
    const messages = await countdownOf(delivery.outbox, record);
    const [first, ...rest] = messages ?? [];
    if (!first) return;
    await delivery.deliverer.replace(first, text);
    for (const extra of rest) await delivery.deliverer.replace(extra, "…");
  } catch (error) {
    logger.warn("could not edit a retry's countdown", { retryId: record.id, key: record.key, error });
  }
}
