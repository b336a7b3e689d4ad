import type { AtomicStore } from "../store/types.ts";

/** Why a turn is cancelled when its conversation lock was lost (expired and taken by another holder). */
export const LOCK_LOST_REASON = "conversation lock lost";

/** True when `signal` was aborted because the lock was lost: the turn's work is not ours to finish. */
export function lockWasLost(signal: AbortSignal): boolean {
  const reason: unknown = signal.reason;
  return signal.aborted && reason instanceof Error && reason.message === LOCK_LOST_REASON;
}

export interface LockHeartbeatOptions {
  readonly atomic: AtomicStore;
  readonly lockKey: string;
  readonly token: string;
  readonly ttlMs: number;
  readonly onLost: () => void;
  /** True when another instance asked to stop the turn running under this lock. */
  readonly stopRequested: () => Promise<boolean>;
  readonly onError: (error: unknown) => void;
}

/**
 * Renews a conversation lock every third of its TTL while a turn runs, so a long model call never
 * loses it; cancels the attached turn when the lock was lost or another instance asked to stop.
 */
export class LockHeartbeat {
  readonly #options: LockHeartbeatOptions;
  #timer: NodeJS.Timeout | undefined;
  #current: AbortController | undefined;

  constructor(options: LockHeartbeatOptions) {
    this.#options = options;
    this.#schedule();
  }

  attach(controller: AbortController): void {
    this.#current = controller;
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /**
   * Renews again after `stop`: a step that may have released the lock kept it after all. The first
   * renewal is at once, so the pause never shortens the lock's remaining time.
   */
  resume(): void {
    if (this.#timer) return;
    this.#schedule();
    this.#renew();
  }

  #schedule(): void {
    this.#timer = setInterval(() => this.#renew(), Math.max(10, Math.floor(this.#options.ttlMs / 3)));
    this.#timer.unref?.();
  }

  #renew(): void {
    const options = this.#options;
    void (async () => {
      const kept = await options.atomic.extendLock(options.lockKey, options.token, options.ttlMs);
      if (!kept) {
        options.onLost();
        this.#current?.abort(new Error(LOCK_LOST_REASON));
      } else if (this.#current && (await options.stopRequested())) {
        this.#current.abort(new Error("stopped by user"));
      }
    })().catch(options.onError);
  }
}
