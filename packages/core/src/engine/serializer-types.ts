/**
 * The serializer's settings and what it reports: how messages arriving mid-turn are treated, how
 * long locks live, how many turns run at once, and the scale-out seam that hands drains to workers.
 */
import type { Logger } from "../runtime/logger.ts";
import type { AtomicStore } from "../store/types.ts";

/** What to do with messages that arrive while a conversation's turn is running. */
export type MidRunPolicy = "queue" | "collect" | "interrupt";

export interface SerializerOptions {
  readonly atomic: AtomicStore;
  readonly logger: Logger;
  /**
   * Lock lifetime without a heartbeat. The heartbeat renews it every third of this, so a turn of
   * any length keeps it, and a crashed holder's lock frees itself within this time.
   */
  readonly lockTtlMs: number;
  readonly policy: MidRunPolicy;
  /** Turns running at once in this process; more conversations wait for a slot, queued. */
  readonly maxConcurrentTurns: number;
  /** A unit of work running longer than this is cancelled (left queued): nothing holds a thread forever. */
  readonly maxTurnMs: number;
  /** Runs one unit of work: one queued item, or (collect policy) every item that was waiting. */
  readonly work: (key: string, items: string[], signal: AbortSignal) => Promise<void>;
  /** Called by the heartbeat: true when another instance asked to stop this conversation's turn. */
  readonly stopRequested: (key: string) => Promise<boolean>;
  /**
   * Scale-out: queued work is announced here instead of drained in this process, and whoever
   * the scheduler hands a conversation to calls `drainScheduled`. Absent: this process drains.
   */
  readonly scheduler?: DrainScheduler;
}

/** Hands "drain this conversation" to whichever process of the cluster runs turns. */
export interface DrainScheduler {
  /** Idempotent: a conversation already waiting to be drained is not scheduled twice. */
  schedule(key: string): Promise<void>;
}

/** How a scheduled drain ended: "locked-elsewhere" when a holder (a dead one, until its TTL) has the lock. */
export type ScheduledDrainOutcome = "drained" | "locked-elsewhere";

/** What an instance sees of its own queues, for health reports and metrics. */
export interface SerializerHealth {
  readonly runningTurns: number;
  readonly waitingForSlot: number;
  /** Conversations this instance is waiting to drain (lock held elsewhere). */
  readonly waitingForLock: number;
  readonly lockWaits: number;
}
