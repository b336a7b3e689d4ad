import { AsyncResource } from "node:async_hooks";
import type { Clock } from "../runtime/clock.ts";
import { SHUTDOWN_REASON } from "../runtime/errors.ts";
import type { Logger } from "../runtime/logger.ts";
import type { TaskRunner } from "./task-runner.ts";
import type { TaskStore } from "./task-store.ts";

/** Whoever runs task steps: this process's loop, or a cluster's job queue. */
export interface TaskScheduler {
  /** The task may take a step now: run it (soon) somewhere. Idempotent. */
  schedule(taskId: string): Promise<void>;
}

export interface TaskDriverOptions {
  readonly store: TaskStore;
  readonly runner: TaskRunner;
  /** Steps running at once in this process. */
  readonly maxConcurrent: number;
  /** How often the due index is read when nothing announced a task (a crashed runner's, a retry's). */
  readonly pollMs: number;
  readonly clock: Clock;
  readonly logger: Logger;
}

/**
 * Runs task steps in this process (role `all`): takes due tasks from the store's due index, the
 * longest waiting first, at most `maxConcurrent` steps at once. After each step a task goes to the
 * back of the index, so many tasks take turns instead of one holding a slot for its whole run. A
 * task whose lease another process holds is left to it; one whose runner died is taken once its
 * lease lapses.
 */
export class TaskDriver implements TaskScheduler {
  readonly #options: TaskDriverOptions;
  readonly #running = new Map<string, Promise<void>>();
  /**
   * Tasks this process leaves alone until the next poll: their lease is held elsewhere (perhaps by
   * a runner that died, until it lapses), or their last run failed. Never a hot loop on the store.
   */
  readonly #resting = new Map<string, number>();
  readonly #shutdown = new AbortController();
  /**
   * Steps run in the async context the driver was built in, never in the one that announced the
   * task: a task started by a turn's tool call would otherwise run inside that turn's context — its
   * LangGraph run (the task's graph taken for a subgraph of the turn's) and its log context.
   */
  readonly #scope = new AsyncResource("switchboard.tasks");
  #timer: NodeJS.Timeout | undefined;
  #pumping: Promise<void> | undefined;
  #again = false;

  constructor(options: TaskDriverOptions) {
    this.#options = options;
  }

  start(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => this.kick(), this.#options.pollMs);
    this.#timer.unref?.();
    this.kick();
  }

  async schedule(taskId: string): Promise<void> {
    this.#resting.delete(taskId);
    this.kick();
  }

  /** Looks for due tasks now (coalesced: one look at a time, one more if asked meanwhile). */
  kick(): void {
    this.#scope.runInAsyncScope(() => this.#kick());
  }

  #kick(): void {
    if (this.#shutdown.signal.aborted) return;
    if (this.#pumping) {
      this.#again = true;
      return;
    }
    this.#pumping = this.#pump()
      .catch((error: unknown) =>
        this.#options.logger.warn("could not look for due tasks; trying again", { error }),
      )
      .finally(() => {
        this.#pumping = undefined;
        if (this.#again) {
          this.#again = false;
          this.#kick();
        }
      });
  }

  /** Steps running in this process now. */
  get running(): number {
    return this.#running.size;
  }

  /** Resolves when no step runs here and none is due (tests). */
  async idle(): Promise<void> {
    for (;;) {
      await this.#pumping;
      if (this.#running.size === 0) {
        const due = await this.#options.store.dueBy(this.#options.clock.now(), 1);
        if (due.length === 0 || this.#shutdown.signal.aborted) return;
        this.kick();
        await this.#pumping;
        if (this.#running.size === 0) return;
      }
      await Promise.allSettled([...this.#running.values()]);
    }
  }

  /** Ends running steps (their work is redone from the last checkpoint at the next start) and stops. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#shutdown.abort(new Error(SHUTDOWN_REASON));
    await this.#pumping;
    await Promise.allSettled([...this.#running.values()]);
  }

  async #pump(): Promise<void> {
    const { store, maxConcurrent, clock } = this.#options;
    const free = maxConcurrent - this.#running.size;
    if (free <= 0) return;
    const due = await store.dueBy(clock.now(), maxConcurrent + this.#running.size);
    const now = clock.now();
    for (const [taskId, until] of this.#resting) if (until <= now) this.#resting.delete(taskId);
    for (const record of due) {
      if (this.#running.size >= maxConcurrent) break;
      if (this.#running.has(record.id) || this.#resting.has(record.id)) continue;
      this.#run(record.id);
    }
  }

  #run(taskId: string): void {
    const rest = () => this.#resting.set(taskId, this.#options.clock.now() + this.#options.pollMs);
    const step = this.#options.runner
      .runStep(taskId, this.#shutdown.signal)
      .then((outcome) => {
        if (outcome !== "stepped") rest();
      })
      .catch((error: unknown) => {
        rest();
        this.#options.logger.error("task step failed to run; its task is tried again later", {
          taskId,
          error,
        });
      })
      .finally(() => {
        this.#running.delete(taskId);
        // The next step of this task, or another task's: whichever has waited longest.
        this.kick();
      });
    this.#running.set(taskId, step);
  }
}
