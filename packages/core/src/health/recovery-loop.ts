import type { Logger } from "../runtime/logger.ts";
import { describeWaits, type WaitReason } from "./wait-reasons.ts";

export interface QueueScan {
  /** Kicks queues with work that nobody here drains; returns the conversations kicked. */
  recover(): Promise<string[]>;
  /** The oldest queued item's enqueue time per conversation with work. */
  queueAges(): Promise<{ key: string; ageMs: number }[]>;
  /** What a conversation with old work is waiting for, as this process sees it. */
  whyWaiting(key: string): WaitReason;
}

export interface RecoveryReport {
  readonly at: number;
  readonly queuedConversations: number;
  readonly oldestQueueAgeMs: number;
  readonly picked: number;
}

/**
 * The health monitor every process runs: picks up queued work whose holder died (its lock expired)
 * without waiting for a new message or a restart, and reports conversations that wait too long —
 * with what they wait for (wait-reasons.ts).
 */
export class RecoveryLoop {
  readonly #scan: QueueScan;
  readonly #logger: Logger;
  readonly #intervalMs: number;
  readonly #staleAfterMs: number;
  readonly #lockTtlMs: number;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #last: RecoveryReport | undefined;

  constructor(options: {
    scan: QueueScan;
    logger: Logger;
    intervalMs: number;
    staleAfterMs: number;
    lockTtlMs: number;
  }) {
    this.#scan = options.scan;
    this.#logger = options.logger;
    this.#intervalMs = options.intervalMs;
    this.#staleAfterMs = options.staleAfterMs;
    this.#lockTtlMs = options.lockTtlMs;
  }

  /** The last round's figures (queue depth and age), for metrics and the health page. */
  get lastReport(): RecoveryReport | undefined {
    return this.#last;
  }

  start(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => {
      this.#running ??= this.runOnce()
        .then(() => undefined)
        .catch((error: unknown) => this.#logger.warn("recovery round failed; trying again", { error }))
        .finally(() => {
          this.#running = undefined;
        });
    }, this.#intervalMs);
    this.#timer.unref?.();
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }

  async runOnce(): Promise<RecoveryReport> {
    const picked = await this.#scan.recover();
    if (picked.length > 0)
      this.#logger.info("picked up queued work nobody was answering", { conversations: picked.length });
    const ages = await this.#scan.queueAges();
    const stale = ages
      .filter((queue) => queue.ageMs > this.#staleAfterMs)
      .map((queue) => ({ ...queue, reason: this.#scan.whyWaiting(queue.key) }));
    for (const report of describeWaits(stale, this.#lockTtlMs))
      this.#logger.warn(report.message, report.fields);
    this.#last = {
      at: Date.now(),
      queuedConversations: ages.length,
      oldestQueueAgeMs: ages.length === 0 ? 0 : Math.max(...ages.map((queue) => queue.ageMs)),
      picked: picked.length,
    };
    return this.#last;
  }
}
