import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import type { ScheduleObserver } from "../schedules/schedule-firer.ts";
import type { FireOutcome, ScheduleRecord, ScheduleStatus } from "../schedules/schedule-record.ts";

/** From on time to hours late (a process that was down catches up within `schedules.catchUpMinutes`). */
const LATENESS_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 15, 60, 300, 900, 3_600, 21_600];

/**
 * Schedules in the process's metrics registry: fires by outcome, how late fires were queued after
 * their time, and how many schedules are in each status (read from the store's indexes when scraped).
 */
export class ScheduleMetrics implements ScheduleObserver {
  readonly #fires: Counter<"outcome">;
  readonly #lateness: Histogram;

  constructor(registry: Registry, counts: () => Promise<Record<ScheduleStatus, number>>) {
    const registers = [registry];
    new Gauge({
      name: "switchboard_schedules",
      help: "Schedules kept in the store, by status",
      labelNames: ["status"],
      registers,
      async collect() {
        for (const [status, count] of Object.entries(await counts())) this.set({ status }, count);
      },
    });
    this.#fires = new Counter({
      name: "switchboard_schedule_fires_total",
      help: "Schedule fires by outcome: posted, failed (a sentence saying so was posted), undeliverable (the schedule was paused), dropped (paused or cancelled before it ran), skipped (missed beyond the catch-up window)",
      labelNames: ["outcome"],
      registers,
    });
    this.#lateness = new Histogram({
      name: "switchboard_schedule_fire_lateness_seconds",
      help: "How long after its time a fire was queued into its thread",
      buckets: LATENESS_BUCKETS,
      registers,
    });
  }

  /** Observes how late the fire was queued. */
  fired(_record: ScheduleRecord, _dueAt: number, lateMs: number): void {
    this.#lateness.observe(Math.max(0, lateMs) / 1000);
  }

  /** Counts skipped fires under `outcome="skipped"`. */
  skipped(_record: ScheduleRecord, count: number): void {
    this.#fires.inc({ outcome: "skipped" }, count);
  }

  /** Counts a fire under its outcome. */
  finished(_record: ScheduleRecord, outcome: FireOutcome): void {
    this.#fires.inc({ outcome });
  }
}
