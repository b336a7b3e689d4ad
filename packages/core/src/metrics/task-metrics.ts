import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import type { TaskRecord, TaskStatus } from "../tasks/task-record.ts";
import type { TaskObserver } from "../tasks/task-runner.ts";
import type { TaskStepEntry } from "../tasks/task-store.ts";

const STEP_BUCKETS = [0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60, 120, 300];
const TOKEN_BUCKETS = [100, 1_000, 5_000, 20_000, 50_000, 100_000, 250_000, 1_000_000];
const COST_BUCKETS = [0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10];

/**
 * Background tasks in the process's metrics registry: how many are in each status (read from the
 * store's status indexes when scraped), how long steps take, and what each task cost when it ended.
 */
export class TaskMetrics implements TaskObserver {
  readonly #stepSeconds: Histogram;
  readonly #stepErrors: Counter<"tool">;
  readonly #ended: Counter<"status">;
  readonly #tokens: Histogram;
  readonly #cost: Histogram;

  constructor(registry: Registry, counts: () => Promise<Record<TaskStatus, number>>) {
    const registers = [registry];
    new Gauge({
      name: "switchboard_tasks",
      help: "Background tasks kept in the store, by status",
      labelNames: ["status"],
      registers,
      async collect() {
        for (const [status, count] of Object.entries(await counts())) this.set({ status }, count);
      },
    });
    this.#stepSeconds = new Histogram({
      name: "switchboard_task_step_duration_seconds",
      help: "Latency of one task step (its model call and tool calls)",
      buckets: STEP_BUCKETS,
      registers,
    });
    this.#stepErrors = new Counter({
      name: "switchboard_task_tool_errors_total",
      help: "Tool calls of task steps that failed, by tool",
      labelNames: ["tool"],
      registers,
    });
    this.#ended = new Counter({
      name: "switchboard_tasks_ended_total",
      help: "Tasks that ended, by how (completed, failed, cancelled)",
      labelNames: ["status"],
      registers,
    });
    this.#tokens = new Histogram({
      name: "switchboard_task_tokens",
      help: "Tokens (input and output) one task used, observed when it ends",
      buckets: TOKEN_BUCKETS,
      registers,
    });
    this.#cost = new Histogram({
      name: "switchboard_task_cost_usd",
      help: "USD one task cost (priced models only), observed when it ends",
      buckets: COST_BUCKETS,
      registers,
    });
  }

  stepFinished(_record: TaskRecord, entry: TaskStepEntry): void {
    this.#stepSeconds.observe(entry.latencyMs / 1000);
    for (const call of entry.toolCalls)
      if (call.status === "error") this.#stepErrors.inc({ tool: call.name });
  }

  ended(record: TaskRecord): void {
    this.#ended.inc({ status: record.status });
    this.#tokens.observe(record.inputTokens + record.outputTokens);
    this.#cost.observe(record.costUsd);
  }
}
