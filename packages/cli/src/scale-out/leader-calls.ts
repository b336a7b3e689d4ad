/**
 * Calls a process of the cluster makes into the one that leads a platform's inbound connection. The
 * one use today: a worker asks the Matrix leader, which holds the bot's one encryption device, to
 * encrypt an event for an encrypted room (the worker then sends it itself). One BullMQ queue per
 * platform, consumed only by the leader and only while it leads; the caller waits for the answer
 * (QueueEvents) a bounded time, and takes back a call no leader took, so nobody works on an answer
 * nobody waits for.
 */
import type { Logger } from "@switchboard/core";
import { type Job, Queue, QueueEvents, Worker } from "bullmq";
import type { BullConnection } from "./bullmq-connection.ts";

const leaderCallQueue = (platform: string) => `leader-calls-${platform}`;
const CALL_JOB = "call";

/** How long a caller waits for the leader's answer: a fail-over (one lease TTL) fits in it. */
export const LEADER_CALL_TIMEOUT_MS = 30_000;

/** The leader did not answer: none led in time, or its answer was an error. */
export class LeaderCallError extends Error {
  constructor(platform: string, reason: string, options?: { cause?: unknown }) {
    super(`the process that leads ${platform} receiving did not answer: ${reason}`, options);
    this.name = "LeaderCallError";
  }
}

/** The calling side (any process of the cluster). Queues and their event listeners open on first use. */
export class LeaderCalls {
  readonly #bull: BullConnection;
  readonly #onError: (error: Error) => void;
  readonly #timeoutMs: number;
  readonly #opened = new Map<string, Promise<{ queue: Queue; events: QueueEvents }>>();

  constructor(bull: BullConnection, onError: (error: Error) => void, timeoutMs = LEADER_CALL_TIMEOUT_MS) {
    this.#bull = bull;
    this.#onError = onError;
    this.#timeoutMs = timeoutMs;
  }

  async call(platform: string, request: unknown): Promise<unknown> {
    const { queue, events } = await this.#open(platform);
    const job = await queue.add(CALL_JOB, request, {
      attempts: 1,
      removeOnComplete: { age: 300 },
      removeOnFail: { age: 3_600 },
    });
    try {
      return await job.waitUntilFinished(events, this.#timeoutMs);
    } catch (error) {
      throw new LeaderCallError(platform, await this.#whyUnanswered(job, error), { cause: error });
    }
  }

  async close(): Promise<void> {
    const opened = [...this.#opened.values()];
    this.#opened.clear();
    for (const pending of opened) {
      const { queue, events } = await pending;
      await events.close();
      await queue.close();
    }
  }

  /** A call still waiting was not taken by any leader: it is taken back. Otherwise the leader's error. */
  async #whyUnanswered(job: Job, error: unknown): Promise<string> {
    const state = await job.getState();
    if (state === "waiting" || state === "prioritized") {
      await job.remove();
      return `none leads now (no answer within ${this.#timeoutMs / 1000} s)`;
    }
    return error instanceof Error ? error.message : String(error);
  }

  #open(platform: string): Promise<{ queue: Queue; events: QueueEvents }> {
    let opened = this.#opened.get(platform);
    if (!opened) {
      opened = (async () => {
        const options = { connection: this.#bull.connection, prefix: this.#bull.prefix };
        const queue = new Queue(leaderCallQueue(platform), options);
        const events = new QueueEvents(leaderCallQueue(platform), options);
        queue.on("error", this.#onError);
        events.on("error", this.#onError);
        // Listening before the first call is added: its answer cannot pass unseen.
        await events.waitUntilReady();
        return { queue, events };
      })();
      this.#opened.set(platform, opened);
    }
    return opened;
  }
}

/** The leader's side: answers calls while it leads (started on election, closed when deposed). */
export class LeaderCallServer {
  readonly #worker: Worker;

  constructor(options: {
    readonly bull: BullConnection;
    readonly platform: string;
    readonly answer: (request: unknown) => Promise<unknown>;
    readonly logger: Logger;
  }) {
    const { bull, platform, answer, logger } = options;
    // One at a time: the answers come from one device, whose crypto runs its calls in turn anyway.
    this.#worker = new Worker(leaderCallQueue(platform), (job) => answer(job.data), {
      connection: bull.connection,
      prefix: bull.prefix,
      concurrency: 1,
    });
    this.#worker.on("failed", (job, error) =>
      logger.warn(`could not answer a call from another process (${platform})`, { jobId: job?.id, error }),
    );
    this.#worker.on("error", (error) => logger.warn("BullMQ leader call worker error", { error }));
  }

  /** Finishes the call in progress and stops taking calls. */
  close(): Promise<void> {
    return this.#worker.close();
  }
}
