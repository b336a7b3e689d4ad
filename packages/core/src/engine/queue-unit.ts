/**
 * One unit of a conversation's queued work: what the next turn takes (one item, or under the
 * collect policy everything waiting) and how it is acknowledged once done. Items stay queued until
 * then, so a crash or stop mid-turn re-delivers them.
 */
import type { AtomicStore, QueueEntry } from "../store/types.ts";
import type { LockHeartbeat } from "./lock-heartbeat.ts";
import type { MidRunPolicy } from "./serializer-types.ts";

export const QUEUE_PREFIX = "queue:";

/** The conversation lock a drain holds, and whether a combined step already released it. */
export interface Hold {
  readonly lockKey: string;
  readonly token: string;
  released: boolean;
}

/** The next unit of work, still in the queue (`peeked`: its first item, already read). */
export async function takeUnit(
  atomic: AtomicStore,
  key: string,
  policy: MidRunPolicy,
  peeked: QueueEntry | null | undefined,
): Promise<QueueEntry[]> {
  const queue = QUEUE_PREFIX + key;
  const first = peeked === undefined ? await atomic.peek(queue) : peeked;
  if (first === null) return [];
  if (policy !== "collect") return [first];
  if ((await atomic.queueLength(queue)) === 1) return [first];
  // Collect: everything waiting becomes one turn, each item left queued until the turn is done.
  return atomic.peekAll(queue);
}

/**
 * Acks the unit's items; the last ack also frees the lock when it leaves the queue empty (one
 * step, so a message queued in between is either counted as remaining or finds the lock free).
 */
export async function finishUnit(
  atomic: AtomicStore,
  key: string,
  entries: QueueEntry[],
  heartbeat: LockHeartbeat,
  hold: Hold,
): Promise<number> {
  const queue = QUEUE_PREFIX + key;
  const last = entries.at(-1);
  for (const entry of entries.slice(0, -1)) await atomic.ack(queue, entry.id);
  if (!last) return atomic.queueLength(queue);
  // Not renewed meanwhile: a renewal racing the release would report the lock as lost.
  heartbeat.stop();
  const remaining = await atomic.ackAndReleaseIfEmpty(queue, last.id, hold.lockKey, hold.token);
  if (remaining === 0) hold.released = true;
  else heartbeat.resume();
  return remaining;
}
