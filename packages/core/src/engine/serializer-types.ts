/**
 * The serializer's settings and what it reports: how messages arriving mid-turn are treated, how
 * long locks live, how many turns run at once, and the scale-out seam that hands drains to workers.
 */
import type { CpuSlotsState } from "../capacity/cpu-slots.ts";
import type { CpuSlotSettings, EventLoopSample } from "../capacity/event-loop-load.ts";
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
  /**
   * Turns in progress at once in this process (waiting on a model included): a ceiling for memory.
   * How many of them compute at once is decided by the event loop's delay (`cpuSlots`).
   */
  readonly maxConcurrentTurns: number;
  /** How the CPU slots of turns start and adapt (default: DEFAULT_ENGINE_SETTINGS.cpuSlots). */
  readonly cpuSlots?: CpuSlotSettings;
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
  /** Turns in progress here: computing, or waiting on a model or a tool. */
  readonly runningTurns: number;
  /** The ceiling on turns in progress (engine.maxConcurrentTurns). */
  readonly maxTurns: number;
  /** Conversations holding their lock whose next turn waits to start (ceiling or CPU slot). */
  readonly waitingToStart: number;
  /** The CPU slots: how many turns may compute at once now, how many do, how many wait. */
  readonly cpuSlots: CpuSlotsState;
  /** The event loop's delay and utilisation over the last window (what sizes the CPU slots). */
  readonly eventLoop: EventLoopSample;
  /** Conversations this instance is waiting to drain (lock held elsewhere). */
  readonly waitingForLock: number;
  readonly lockWaits: number;
}
