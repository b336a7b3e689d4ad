/**
 * Background task steps in a cluster: one BullMQ job per step. A step is the unit a task
 * checkpoints and runs at most once (its lease, its journal), so a job per step lets the cluster
 * spread the steps of many tasks over its workers in turn, gives a step whose worker died to another
 * (BullMQ's stalled check, then the task's lease lapses), and never pins a job lock for a task's
 * whole run. The job carries only the task id: the store holds the task, its next step and its
 * controls; the job's id is derived from the task, so a task waiting for its step is queued once.
 */
import type { Logger } from "@switchboard/core";
import type { StepOutcome, TaskScheduler } from "@switchboard/core/host";
import { DelayedError, type Job, type JobsOptions, Queue, Worker } from "bullmq";
import type { BullConnection } from "./bullmq-connection.ts";
import { jobLockOptions } from "./takeover.ts";

export const TASK_STEP_QUEUE = "task-steps";
const TASK_STEP_JOB = "step";

interface TaskStepJobData {
  readonly taskId: string;
}

const TASK_STEP_JOB_OPTIONS: JobsOptions = {
  // The id must be free again once a step ended: only then can the next step queue.
  removeOnComplete: true,
  removeOnFail: true,
  // A failing job is an infrastructure failure (a step's own errors end or pause the task): retried
  // with backoff; after the last attempt the tasks' health round announces the task again.
  attempts: 8,
  backoff: { type: "exponential", delay: 1_000 },
};

const jobIdOf = (taskId: string) => `task-${taskId}`;

/** The producing side: a task that may take a step is announced here (any process of the cluster). */
export class TaskStepQueue implements TaskScheduler {
  readonly #queue: Queue<TaskStepJobData>;

  constructor(bull: BullConnection, onError: (error: Error) => void) {
    this.#queue = new Queue<TaskStepJobData>(TASK_STEP_QUEUE, {
      connection: bull.connection,
      prefix: bull.prefix,
    });
    this.#queue.on("error", onError);
  }

  async schedule(taskId: string): Promise<void> {
    await this.#queue.add(TASK_STEP_JOB, { taskId }, { ...TASK_STEP_JOB_OPTIONS, jobId: jobIdOf(taskId) });
  }

  close(): Promise<void> {
    return this.#queue.close();
  }
}

/** What a worker runs a step with: the process's tasks. */
export interface TaskStepTarget {
  runStep(taskId: string, shutdown?: AbortSignal): Promise<StepOutcome>;
}

export interface TaskStepWorkerOptions {
  readonly bull: BullConnection;
  readonly tasks: TaskStepTarget;
  readonly queue: TaskStepQueue;
  /** Steps running at once in this worker (`tasks.maxConcurrent`). */
  readonly concurrency: number;
  readonly jobLockMs: number;
  /** The task lease's TTL: a task held by a dead worker is free within it. */
  readonly leaseTtlMs: number;
  readonly logger: Logger;
}

/** The consuming side: runs one step per job, then announces the task's next step. */
export class TaskStepWorker {
  readonly #options: TaskStepWorkerOptions;
  readonly #shutdown = new AbortController();
  #worker: Worker<TaskStepJobData, StepOutcome> | undefined;

  constructor(options: TaskStepWorkerOptions) {
    this.#options = options;
  }

  start(): void {
    const { bull, concurrency, jobLockMs, logger } = this.#options;
    const worker = new Worker<TaskStepJobData, StepOutcome>(
      TASK_STEP_QUEUE,
      (job, token) => this.#process(job, token),
      {
        connection: bull.connection,
        prefix: bull.prefix,
        concurrency,
        ...jobLockOptions(jobLockMs),
        maxStalledCount: 5,
      },
    );
    // After the job is gone (its id free again): the task's next step, at the back of the queue.
    worker.on("completed", (job, outcome) => {
      if (outcome === "stepped") void this.#announce(job.data.taskId);
    });
    worker.on("failed", (job, error) => {
      if (!job || error instanceof DelayedError) return;
      logger.warn("task step job failed; BullMQ tries it again with backoff", {
        taskId: job.data.taskId,
        attempt: job.attemptsMade,
        error,
      });
    });
    worker.on("stalled", (jobId) =>
      logger.warn("a task step stalled (its worker died or hung); another worker takes it", { jobId }),
    );
    worker.on("error", (error) => logger.warn("BullMQ task step worker error", { error }));
    this.#worker = worker;
  }

  /** Ends running steps (each continues from its last checkpoint) and stops taking jobs. */
  async close(): Promise<void> {
    this.#shutdown.abort(new Error("shutting down"));
    await this.#worker?.close();
    this.#worker = undefined;
  }

  async #process(job: Job<TaskStepJobData>, token: string | undefined): Promise<StepOutcome> {
    const outcome = await this.#options.tasks.runStep(job.data.taskId, this.#shutdown.signal);
    // Cut short by this worker stopping: the job fails back to BullMQ, and another worker retries
    // the step from the task's last checkpoint.
    if (this.#shutdown.signal.aborted) throw new Error("the worker stopped during this step");
    if (outcome === "locked") {
      // A worker that died keeps the task's lease until it lapses: look again a third of it later.
      const lease = this.#options.leaseTtlMs;
      await job.moveToDelayed(Date.now() + Math.ceil(lease / 3 + Math.random() * (lease / 6)), token);
      throw new DelayedError();
    }
    return outcome;
  }

  async #announce(taskId: string): Promise<void> {
    try {
      await this.#options.queue.schedule(taskId);
    } catch (error) {
      this.#options.logger.warn("could not announce a task's next step; the health round does", {
        taskId,
        error,
      });
    }
  }
}
