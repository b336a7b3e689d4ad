import type { Clock } from "../../runtime/clock.ts";
import type { Logger } from "../../runtime/logger.ts";
import type { BlobStore } from "./blob-store.ts";

const DAY_MS = 24 * 60 * 60 * 1000;
/** Retention is counted in days: an hourly pass keeps a file at most an hour past its time. */
const DEFAULT_INTERVAL_MS = 60 * 60 * 1000;

export interface BlobRetentionOptions {
  readonly blobs: BlobStore;
  readonly retainDays: number;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly intervalMs?: number;
}

/**
 * Deletes files kept longer than `attachments.retainDays` (and the half-written ones a crash left).
 * One process sweeps on its own timer (`start`); a cluster runs `sweep()` as a round once per
 * cluster, so a shared folder is not walked by every worker at once. The Redis store expires its
 * blobs by itself: its pass finds nothing to do.
 */
export class BlobRetention {
  readonly #options: BlobRetentionOptions;
  #timer: NodeJS.Timeout | undefined;
  #sweeping: Promise<number> | undefined;

  constructor(options: BlobRetentionOptions) {
    this.#options = options;
  }

  get intervalMs(): number {
    return this.#options.intervalMs ?? DEFAULT_INTERVAL_MS;
  }

  /** One pass; a pass already running is joined rather than doubled. Returns how many files went. */
  sweep(): Promise<number> {
    this.#sweeping ??= this.#sweepOnce().finally(() => {
      this.#sweeping = undefined;
    });
    return this.#sweeping;
  }

  /** Sweeps now and then on this process's timer (role `all`). */
  start(): void {
    if (this.#timer) return;
    const run = () =>
      void this.sweep().catch((error: unknown) =>
        this.#options.logger.error("could not delete old files", {
          store: this.#options.blobs.description,
          error,
        }),
      );
    run();
    this.#timer = setInterval(run, this.intervalMs);
    // Housekeeping never keeps the process alive.
    this.#timer.unref();
  }

  /** Stops the timer; resolves when a running pass ended. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#sweeping?.catch(() => undefined);
  }

  async #sweepOnce(): Promise<number> {
    const { blobs, retainDays, clock, logger } = this.#options;
    const deleted = await blobs.sweep(clock.now() - retainDays * DAY_MS);
    if (deleted > 0) logger.info("deleted files past their retention", { deleted, retainDays });
    return deleted;
  }
}
