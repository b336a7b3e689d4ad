import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import type { ScheduledDrainOutcome } from "../engine/serializer.ts";

const WAIT_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300];

/** Jobs the cluster's work queue holds, by state, as its job engine reports them. */
export interface WorkQueueCounts {
  readonly waiting: number;
  readonly active: number;
  readonly delayed: number;
  readonly failed: number;
}

/** Whether this ingress leads a platform's singleton inbound connection (Matrix sync, Discord gateway). */
export interface Leading {
  readonly platform: string;
  readonly leading: boolean;
}

/**
 * Scale-out figures (roles ingress and worker), in the process's metrics registry: the work
 * queue's jobs by state (read when scraped), and what this process's drains did.
 */
export class WorkQueueMetrics {
  readonly #waitSeconds: Histogram;
  readonly #drainSeconds: Histogram<"outcome">;
  readonly #stalled: Counter;
  #lastCounts: WorkQueueCounts | undefined;

  constructor(
    registry: Registry,
    counts: () => Promise<WorkQueueCounts>,
    leading: () => readonly Leading[] = () => [],
  ) {
    const registers = [registry];
    const metrics = this;
    new Gauge({
      name: "switchboard_leading",
      help: "1 while this ingress leads the platform's singleton inbound connection (Matrix sync, Discord gateway), 0 while it stands by",
      labelNames: ["platform"],
      registers,
      collect() {
        for (const entry of leading()) this.set({ platform: entry.platform }, entry.leading ? 1 : 0);
      },
    });
    new Gauge({
      name: "switchboard_work_queue_jobs",
      help: "Drain jobs in the cluster's work queue, by state (waiting, active, delayed, failed)",
      labelNames: ["state"],
      registers,
      async collect() {
        const now = await counts();
        metrics.#lastCounts = now;
        for (const state of ["waiting", "active", "delayed", "failed"] as const)
          this.set({ state }, now[state]);
      },
    });
    this.#waitSeconds = new Histogram({
      name: "switchboard_work_queue_wait_seconds",
      help: "Time from a conversation's drain job being queued to a worker starting it",
      buckets: WAIT_BUCKETS,
      registers,
    });
    this.#drainSeconds = new Histogram({
      name: "switchboard_work_queue_drain_seconds",
      help: "Time a worker spent draining one conversation, by outcome (drained, locked-elsewhere, failed)",
      labelNames: ["outcome"],
      buckets: WAIT_BUCKETS,
      registers,
    });
    this.#stalled = new Counter({
      name: "switchboard_work_queue_stalled_total",
      help: "Drain jobs found stalled (their worker died or hung) and handed to another worker",
      registers,
    });
  }

  /** The figures of the last scrape, for the health page. */
  get lastCounts(): WorkQueueCounts | undefined {
    return this.#lastCounts;
  }

  started(waitedMs: number): void {
    this.#waitSeconds.observe(Math.max(0, waitedMs) / 1000);
  }

  finished(outcome: ScheduledDrainOutcome | "failed", durationMs: number): void {
    this.#drainSeconds.observe({ outcome }, durationMs / 1000);
  }

  stalled(): void {
    this.#stalled.inc();
  }
}
