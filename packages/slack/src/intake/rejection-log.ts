import type { Logger } from "@switchboard/core/adapter";

export interface RejectionLogOptions {
  readonly logger: Logger;
  /** How often a summary of refused requests may be written. */
  readonly intervalMs?: number;
}

/**
 * Refused requests are counted, not each written down: a hostile sender must not be able to turn
 * every request into a log line. The first refusal of each reason is logged at once (with its
 * detail); later ones in the same interval are summed into one line per interval.
 */
export class RejectionLog {
  readonly #logger: Logger;
  readonly #intervalMs: number;
  readonly #counts = new Map<string, number>();
  readonly #seenThisInterval = new Set<string>();
  #timer: NodeJS.Timeout | undefined;
  #total = 0;

  constructor(options: RejectionLogOptions) {
    this.#logger = options.logger;
    this.#intervalMs = options.intervalMs ?? 60_000;
  }

  /** Every request refused since start, by any reason. */
  get total(): number {
    return this.#total;
  }

  note(reason: string, detail: Record<string, unknown> = {}): void {
    this.#total += 1;
    if (!this.#seenThisInterval.has(reason)) {
      this.#seenThisInterval.add(reason);
      this.#logger.warn("refused a request that did not come from Slack as Slack sends it", {
        reason,
        ...detail,
      });
      this.#arm();
      return;
    }
    this.#counts.set(reason, (this.#counts.get(reason) ?? 0) + 1);
  }

  #arm(): void {
    if (this.#timer) return;
    this.#timer = setTimeout(() => this.#flush(), this.#intervalMs);
    // A pending summary must not keep the process alive.
    this.#timer.unref();
  }

  #flush(): void {
    this.#timer = undefined;
    this.#seenThisInterval.clear();
    if (this.#counts.size === 0) return;
    const counts = Object.fromEntries(this.#counts);
    const suppressed = [...this.#counts.values()].reduce((sum, count) => sum + count, 0);
    this.#counts.clear();
    this.#logger.warn("refused more requests that did not come from Slack as Slack sends it", {
      suppressed,
      counts,
      intervalSeconds: Math.round(this.#intervalMs / 1000),
    });
  }

  /** Writes what is still counted (on stop). */
  close(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#flush();
  }
}
