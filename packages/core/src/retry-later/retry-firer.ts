import type { Continuation } from "../engine/responder.ts";
import type { Clock } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";
import { tryContinuationId } from "./retry-record.ts";
import type { RetryStore } from "./retry-store.ts";

/** The continuation that runs a later try in its thread. */
export const RETRY_LATER = "retry_later";

/** What queues a try into its thread: the engine. */
export interface TryQueue {
  /** False when a continuation with the same id was queued before. */
  enqueueContinuation(key: string, continuation: Continuation): Promise<boolean>;
}

const BATCH = 200;

/**
 * Turns each due try into a continuation of its thread, then takes it out of the due index. The
 * continuation's id names the retry and the try, and the engine queues a named continuation once —
 * so a try is queued exactly once however many processes fire at the same moment, and however
 * often a crash between queueing and unindexing makes the next round see the same try again.
 * Queued behind the thread's other work, the try runs after the failed turn itself has finished.
 */
export class RetryFirer {
  readonly #store: RetryStore;
  readonly #queue: () => TryQueue;
  readonly #clock: Clock;
  readonly #logger: Logger;

  constructor(options: { store: RetryStore; queue: () => TryQueue; clock: Clock; logger: Logger }) {
    this.#store = options.store;
    this.#queue = options.queue;
    this.#clock = options.clock;
    this.#logger = options.logger;
  }

  /** Queues every try due now; returns how many were queued. */
  async fireDue(): Promise<{ fired: number }> {
    let fired = 0;
    for (;;) {
      const due = await this.#store.dueBy(this.#clock.now(), BATCH);
      for (const entry of due) {
        try {
          if (await this.#fire(entry.id, entry.attempt)) fired += 1;
        } catch (error) {
          this.#logger.warn("could not queue a later retry; the next round tries again", {
            retryId: entry.id,
            error,
          });
        }
      }
      if (due.length < BATCH) return { fired };
    }
  }

  async #fire(id: string, attempt: number): Promise<boolean> {
    const record = await this.#store.get(id);
    let queued = false;
    if (record?.status === "waiting" && record.attempt === attempt) {
      queued = await this.#queue().enqueueContinuation(record.key, {
        id: tryContinuationId(id, attempt),
        requestId: `retry-later:${id}`,
        type: RETRY_LATER,
        data: { retryId: id, attempt },
      });
      if (queued)
        this.#logger.info("a turn the model could not answer is tried again", { retryId: id, attempt });
    }
    await this.#store.unindex(id, attempt);
    return queued;
  }
}
