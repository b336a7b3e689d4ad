import type { Logger } from "@switchboard/core/adapter";

/**
 * Discord shows "is typing…" for about ten seconds per request and has no way to stop it early,
 * so while a turn runs the request is renewed on an interval; stopping just stops renewing.
 */
export class TypingIndicator {
  readonly #intervalMs: number;
  readonly #logger: Logger;
  readonly #timers = new Map<string, NodeJS.Timeout>();

  constructor(intervalMs: number, logger: Logger) {
    this.#intervalMs = intervalMs;
    this.#logger = logger;
  }

  /** Shows typing now and keeps renewing it until `stop(key)`; a failed first request is the caller's to handle. */
  async start(key: string, sendTyping: () => Promise<void>): Promise<void> {
    this.stop(key);
    const timer = setInterval(() => {
      sendTyping().catch((error: unknown) =>
        this.#logger.warn("could not renew the typing indicator", { key, error }),
      );
    }, this.#intervalMs);
    timer.unref();
    this.#timers.set(key, timer);
    try {
      await sendTyping();
    } catch (error) {
      this.stop(key);
      throw error;
    }
  }

  stop(key: string): void {
    clearInterval(this.#timers.get(key));
    this.#timers.delete(key);
  }

  stopAll(): void {
    for (const key of [...this.#timers.keys()]) this.stop(key);
  }

  get active(): number {
    return this.#timers.size;
  }
}
