import { Counter, Gauge, type Registry } from "prom-client";
import type { RetryRecord, RetryStatus } from "../retry-later/retry-record.ts";
import type { RetryLaterObserver } from "../retry-later/waiting-retries.ts";

/**
 * Later retries in the process's metrics registry: how turns the model could not answer ended, and
 * how many tries wait now (read from the store's due index when scraped).
 */
export class RetryLaterMetrics implements RetryLaterObserver {
  readonly #retries: Counter<"outcome">;

  constructor(registry: Registry, waiting: () => Promise<number>) {
    const registers = [registry];
    this.#retries = new Counter({
      name: "switchboard_model_retries_later_total",
      help: "Turns the model could not answer, by what became of them: planned (a countdown was posted), answered, superseded (a newer message), cancelled (/stop), gave_up (every later try failed), failed (another error)",
      labelNames: ["outcome"],
      registers,
    });
    new Gauge({
      name: "switchboard_model_retries_waiting",
      help: "Turns waiting for their next later try",
      registers,
      async collect() {
        this.set(await waiting());
      },
    });
  }

  /** Counts a countdown posted under `outcome="planned"`. */
  planned(_record: RetryRecord): void {
    this.#retries.inc({ outcome: "planned" });
  }

  /** Counts what became of a retry under its status. */
  ended(_record: RetryRecord, status: Exclude<RetryStatus, "waiting">): void {
    this.#retries.inc({ outcome: status });
  }
}
