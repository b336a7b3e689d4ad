import type { AtomicStore } from "../store/types.ts";

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
    this.resume();
  }

  attach(controller: AbortController): void {
    this.#current = controller;
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** Renews again after `stop`: a step that may have released the lock kept it after all. */
  resume(): void {
    if (this.#timer) return;
    const options = this.#options;
    this.#timer = setInterval(
      () => {
        void (async () => {
          const kept = await options.atomic.extendLock(options.lockKey, options.token, options.ttlMs);
          if (!kept) {
            options.onLost();
            this.#current?.abort(new Error("conversation lock lost"));
          } else if (this.#current && (await options.stopRequested())) {
            this.#current.abort(new Error("stopped by user"));
          }
        })().catch(options.onError);
      },
      Math.max(10, Math.floor(options.ttlMs / 3)),
    );
    this.#timer.unref?.();
  }
}
