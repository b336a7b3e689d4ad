import pLimit from "p-limit";
import type { Continuation } from "../engine/responder.ts";
import type { Clock } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";
import { type FireOutcome, type FirePlan, planFire, type ScheduleRecord } from "./schedule-record.ts";
import type { ScheduleStore } from "./schedule-store.ts";

/** The continuation that runs a fire in its home thread. */
export const SCHEDULE_FIRED = "schedule_fired";
/** The continuation that says in the thread which fires were missed and skipped. */
export const SCHEDULE_SKIPPED = "schedule_skipped";

/** What queues a fire into its home thread: the engine. */
export interface FireQueue {
  /** False when a continuation with the same id was queued before. */
  enqueueContinuation(key: string, continuation: Continuation): Promise<boolean>;
}

/** Hears what schedules do (metrics). Must not throw. */
export interface ScheduleObserver {
  /** A fire was queued `lateMs` after its time. */
  fired?(record: ScheduleRecord, dueAt: number, lateMs: number): void;
  /** `count` fires were missed too long ago and skipped. */
  skipped?(record: ScheduleRecord, count: number): void;
  /** A fire's run ended (or was not run): what became of it. */
  finished?(record: ScheduleRecord, outcome: FireOutcome): void;
}

export interface ScheduleFirerOptions {
  readonly store: ScheduleStore;
  readonly queue: () => FireQueue;
  /** A fire this late or less is still made (with a note); older ones are skipped. */
  readonly catchUpMs: number;
  readonly observer?: ScheduleObserver;
  readonly clock: Clock;
  readonly logger: Logger;
}

/** Fires handled at once (store round trips overlap; each schedule is still changed under its own lock). */
const FIRING_AT_ONCE = 16;
const BATCH = 500;

/**
 * The firing side: reads the due index and turns each due schedule into a continuation of its home
 * thread, then advances the schedule's next fire. The continuation's id names the schedule and the
 * due time, and the engine queues a named continuation once — so a fire is queued exactly once,
 * however many processes fire at the same moment and however often a crash between queueing and
 * advancing makes the next round fire the same due time again. Running it, posting it and recording
 * it in the run-steps log is the home thread's work (ScheduleRuns), through the thread's outbox.
 */
export class ScheduleFirer {
  readonly #options: ScheduleFirerOptions;

  constructor(options: ScheduleFirerOptions) {
    this.#options = options;
  }

  /** Fires every schedule due now (batch after batch); returns how many fired and how many fires were skipped. */
  async fireDue(): Promise<{ fired: number; skipped: number }> {
    const { store, clock, logger } = this.#options;
    const limit = pLimit(FIRING_AT_ONCE);
    let fired = 0;
    let skipped = 0;
    for (;;) {
      const due = await store.dueBy(clock.now(), BATCH);
      const plans = await Promise.all(
        due.map((record) =>
          limit(() =>
            this.fireOne(record.id).catch((error: unknown) => {
              logger.warn("could not fire a schedule; the next round tries again", {
                scheduleId: record.id,
                error,
              });
              return undefined;
            }),
          ),
        ),
      );
      for (const plan of plans) {
        if (plan?.fire !== undefined) fired += 1;
        skipped += plan?.skipped?.count ?? 0;
      }
      if (due.length < BATCH) return { fired, skipped };
    }
  }

  /** Fires one schedule if it is due (under its lock); what it did, or undefined when it was not due. */
  async fireOne(id: string): Promise<FirePlan | undefined> {
    const { store, clock, catchUpMs, observer } = this.#options;
    return store.update(id, async (record) => {
      const now = clock.now();
      const plan = planFire(record, now, catchUpMs);
      if (!plan) return { result: undefined };
      const queue = this.#options.queue();
      if (plan.skipped) {
        await queue.enqueueContinuation(record.home.key, {
          id: `schedule:${id}:skipped:${plan.skipped.first}`,
          requestId: `schedule:${id}`,
          type: SCHEDULE_SKIPPED,
          data: { scheduleId: id, ...plan.skipped },
        });
        observer?.skipped?.(record, plan.skipped.count);
        this.#options.logger.info("missed schedule fires skipped (too late to catch up)", {
          scheduleId: id,
          count: plan.skipped.count,
        });
      }
      if (plan.fire !== undefined) {
        // The entry first, never replaced: a repeated round after a crash keeps the outcome it has.
        if (!(await store.fire(id, plan.fire)))
          await store.recordFire({
            scheduleId: id,
            dueAt: plan.fire,
            firedAt: now,
            ...(record.lastFireAt === undefined ? {} : { previousDueAt: record.lastFireAt }),
            ...(plan.skipped ? { skipped: plan.skipped.count } : {}),
          });
        const queued = await queue.enqueueContinuation(record.home.key, {
          id: `schedule:${id}:${plan.fire}`,
          requestId: `schedule:${id}:${plan.fire}`,
          type: SCHEDULE_FIRED,
          data: { scheduleId: id, dueAt: plan.fire },
        });
        if (queued) observer?.fired?.(record, plan.fire, now - plan.fire);
      }
      return { record: plan.record, result: plan };
    });
  }
}
