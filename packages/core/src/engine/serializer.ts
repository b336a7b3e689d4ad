import { TurnCancelledError } from "../runtime/errors.ts";
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
  /** Runs one unit of work: one queued item, or (collect policy) every item that was waiting. */
  readonly work: (key: string, items: string[], signal: AbortSignal) => Promise<void>;
  /** Called by the heartbeat: true when another instance asked to stop this conversation's turn. */
  readonly stopRequested: (key: string) => Promise<boolean>;
}

const QUEUE_PREFIX = "queue:";
const LOCK_PREFIX = "lock:";

/**
 * One turn at a time per conversation, across every instance sharing the store: work is appended
 * to the conversation's durable queue, and whoever holds the conversation's lock drains it in order.
 * An item leaves the queue only after its work finished, so a crash re-delivers instead of losing it.
 */
export class ConversationSerializer {
  readonly #options: SerializerOptions;
  readonly #draining = new Map<string, Promise<void>>();
  readonly #running = new Map<string, AbortController>();
  #stopped = false;

  constructor(options: SerializerOptions) {
    this.#options = options;
  }

  /** Queues `item` for the conversation and makes sure someone drains it. */
  async submit(key: string, item: string): Promise<void> {
    if (this.#stopped) throw new Error("the engine is shutting down; message not accepted");
    await this.#options.atomic.enqueue(QUEUE_PREFIX + key, item);
    if (this.#options.policy === "interrupt")
      this.#running.get(key)?.abort(new Error("a newer message arrived"));
    this.#kick(key);
  }

  /** Cancels the turn running here for this conversation; false when none runs in this process. */
  cancel(key: string, reason: string): boolean {
    const controller = this.#running.get(key);
    controller?.abort(new Error(reason));
    return controller !== undefined;
  }

  isRunning(key: string): boolean {
    return this.#running.has(key);
  }

  /** Picks up queues left non-empty by a crash or a previous run. */
  async recover(): Promise<number> {
    const queues = await this.#options.atomic.nonEmptyQueues();
    const keys = queues
      .filter((queue) => queue.startsWith(QUEUE_PREFIX))
      .map((q) => q.slice(QUEUE_PREFIX.length));
    for (const key of keys) this.#kick(key);
    return keys.length;
  }

  /** Resolves when nothing is being drained in this process. */
  async idle(): Promise<void> {
    while (this.#draining.size > 0) await Promise.allSettled([...this.#draining.values()]);
  }

  /** Stops taking work, cancels running turns, waits for them to end and release their locks. */
  async stop(reason = "shutting down"): Promise<void> {
    this.#stopped = true;
    for (const controller of this.#running.values()) controller.abort(new Error(reason));
    await this.idle();
  }

  #kick(key: string): void {
    if (this.#stopped || this.#draining.has(key)) return;
    const run = this.#drainUntilEmpty(key)
      .catch((error: unknown) => {
        // A failed drain is retried by the next message or the next start, never in a hot loop.
        if (error instanceof TurnCancelledError)
          this.#options.logger.info("turn left queued", { key, reason: error.reason });
        else this.#options.logger.error("conversation queue failed; its work stays queued", { key, error });
      })
      .finally(() => this.#draining.delete(key));
    this.#draining.set(key, run);
  }

  /**
   * Drains while this process holds the lock, then looks once more after releasing it: work queued
   * between our last look and the release found the lock taken and left it to us. When another
   * instance holds the lock we stop at once; it looks again after its own release.
   */
  async #drainUntilEmpty(key: string): Promise<void> {
    while ((await this.#drain(key)) && !this.#stopped) {
      if ((await this.#options.atomic.queueLength(QUEUE_PREFIX + key)) === 0) return;
    }
  }

  /** Runs the queue's work while holding the lock; false when someone else holds it. */
  async #drain(key: string): Promise<boolean> {
    const { atomic, lockTtlMs } = this.#options;
    const lockKey = LOCK_PREFIX + key;
    const token = await atomic.acquireLock(lockKey, lockTtlMs);
    if (!token) return false;
    const heartbeat = this.#startHeartbeat(key, lockKey, token);
    try {
      while (!this.#stopped) {
        const items = await this.#take(key);
        if (items.length === 0) break;
        const controller = new AbortController();
        this.#running.set(key, controller);
        heartbeat.attach(controller);
        try {
          await this.#options.work(key, items, controller.signal);
        } finally {
          this.#running.delete(key);
        }
        await this.#finish(key, items.length);
      }
    } finally {
      heartbeat.stop();
      await atomic.releaseLock(lockKey, token);
    }
    return true;
  }

  /** The next unit of work, still in the queue. */
  async #take(key: string): Promise<string[]> {
    const queue = QUEUE_PREFIX + key;
    const first = await this.#options.atomic.peek(queue);
    if (first === null) return [];
    if (this.#options.policy !== "collect") return [first];
    const length = await this.#options.atomic.queueLength(queue);
    if (length === 1) return [first];
    // Collect: everything waiting becomes one turn. Drained at once; the turn holds them now.
    return this.#options.atomic.drain(queue);
  }

  async #finish(key: string, count: number): Promise<void> {
    if (this.#options.policy === "collect" && count > 1) return; // already drained
    await this.#options.atomic.ack(QUEUE_PREFIX + key);
  }

  #startHeartbeat(key: string, lockKey: string, token: string) {
    const { atomic, lockTtlMs, logger } = this.#options;
    let current: AbortController | undefined;
    const timer = setInterval(
      () => {
        void (async () => {
          const kept = await atomic.extendLock(lockKey, token, lockTtlMs);
          if (!kept) {
            logger.error("lost the conversation lock mid-turn; cancelling the turn", { key });
            current?.abort(new Error("conversation lock lost"));
          } else if (current && (await this.#options.stopRequested(key))) {
            current.abort(new Error("stopped by user"));
          }
        })().catch((error: unknown) => logger.warn("lock heartbeat failed", { key, error }));
      },
      Math.max(10, Math.floor(lockTtlMs / 3)),
    );
    timer.unref?.();
    return {
      attach(controller: AbortController) {
        current = controller;
      },
      stop() {
        clearInterval(timer);
      },
    };
  }
}
