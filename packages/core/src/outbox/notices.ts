import type { Delivery } from "../delivery/deliverer.ts";
import type { Logger } from "../runtime/logger.ts";
import type { Store } from "../store/types.ts";
import type { Outbox } from "./outbox.ts";

/** Notices recorded and not yet confirmed posted, scored by when they were recorded. */
export const PENDING_NOTICES = "outbox:notices";
const BATCH = 100;

/**
 * Posts that answer no queued work — `/stop` replies, a request's "still working" and "timed out"
 * notices — through the outbox, exactly once. A notice is named by what it announces (the same
 * notice decided twice, say by a sweep repeated after a crash, is one notice), written to the
 * outbox and to a pending index before anything it announces is changed, and only then posted,
 * with the outbox's retries. The recovery loop posts whatever a crashed process left pending.
 *
 * A lock per notice, renewed while it is posted, keeps two processes from posting it at once; a
 * dead holder's lock expires within one TTL and recovery takes over, asking the platform first
 * whether the post had landed (the outbox's idempotency keys).
 */
export class Notices {
  readonly #store: Store;
  readonly #outbox: Outbox;
  readonly #logger: Logger;
  readonly #lockTtlMs: number;

  constructor(options: { store: Store; outbox: Outbox; logger: Logger; lockTtlMs: number }) {
    this.#store = options.store;
    this.#outbox = options.outbox;
    this.#logger = options.logger;
    this.#lockTtlMs = options.lockTtlMs;
  }

  /**
   * Records the notice, runs `afterRecorded` (the change it announces), then posts it. When another
   * process holds this notice it is that process's to post: only `afterRecorded` runs here. When
   * `afterRecorded` throws, the notice stays pending (recovery posts it) and the error is rethrown.
   */
  async send(noticeId: string, delivery: Delivery, afterRecorded?: () => Promise<void>): Promise<void> {
    const held = await this.#hold(noticeId);
    if (!held) {
      await afterRecorded?.();
      return;
    }
    try {
      // Pending before recorded: a crash between the two leaves a mark with nothing to post
      // (recovery drops it), never a recorded notice nobody knows to post.
      await this.#store.sortedSets.apply([{ set: PENDING_NOTICES, member: noticeId, score: Date.now() }]);
      const work = await this.#outbox.open(workIdOf(noticeId));
      await work.record(delivery);
      await afterRecorded?.();
      await work.deliverRecorded();
      await this.#settle(noticeId);
    } finally {
      await held.release();
    }
  }

  /** Posts the notices crashed processes left pending; returns how many were settled here. */
  async deliverPending(): Promise<number> {
    let settled = 0;
    const skipped = new Set<string>();
    for (;;) {
      const pending = (await this.#store.sortedSets.upTo(PENDING_NOTICES, Infinity, BATCH)).filter(
        ({ member }) => !skipped.has(member),
      );
      if (pending.length === 0) return settled;
      for (const { member: noticeId } of pending) {
        skipped.add(noticeId);
        const held = await this.#hold(noticeId);
        // Held elsewhere: its writer (or another recovery) is posting it now.
        if (!held) continue;
        try {
          this.#logger.info("posting a notice recorded before a restart", { noticeId });
          await (await this.#outbox.open(workIdOf(noticeId))).deliverRecorded();
          await this.#settle(noticeId);
          settled += 1;
        } catch (error) {
          this.#logger.warn("could not post a pending notice; trying again next round", { noticeId, error });
        } finally {
          await held.release();
        }
      }
    }
  }

  /** How many notices wait to be posted (for tests and the health page). */
  pendingCount(): Promise<number> {
    return this.#store.sortedSets.count(PENDING_NOTICES);
  }

  #settle(noticeId: string): Promise<void> {
    return this.#store.sortedSets.apply([{ set: PENDING_NOTICES, member: noticeId, score: null }]);
  }

  /** The notice's lock, renewed every third of its TTL until released; null when held elsewhere. */
  async #hold(noticeId: string): Promise<{ release(): Promise<void> } | null> {
    const { atomic } = this.#store;
    const key = `notice-lock:${noticeId}`;
    const token = await atomic.acquireLock(key, this.#lockTtlMs);
    if (token === null) return null;
    const timer = setInterval(
      () =>
        void atomic
          .extendLock(key, token, this.#lockTtlMs)
          .catch((error: unknown) =>
            this.#logger.warn("could not renew a notice's lock", { noticeId, error }),
          ),
      Math.max(10, Math.floor(this.#lockTtlMs / 3)),
    );
    timer.unref?.();
    return {
      release: async () => {
        clearInterval(timer);
        await atomic.releaseLock(key, token);
      },
    };
  }
}

const workIdOf = (noticeId: string) => `notice:${noticeId}`;
