import { Counter, Gauge, type Registry } from "prom-client";

/** What a platform adapter with end-to-end encryption counts (Matrix): read when metrics are scraped. */
export interface EncryptionCounts {
  /** Events that could not be decrypted since the process started, by reason (`missing_key`, `unverified_device`…). */
  readonly decryptionFailures: Readonly<Record<string, number>>;
  /** Encrypted events kept until their keys arrive. */
  readonly waiting: number;
}

/**
 * End-to-end encryption in the process's metrics registry, per platform: decryption failures by
 * reason and the events waiting for keys. The adapter keeps the counts (no metrics library in a
 * platform package); they are read when scraped. Undefined counts (encryption not active, or not
 * this process's: a worker) leave the figures out.
 */
export class EncryptionMetrics {
  constructor(registry: Registry, sources: ReadonlyMap<string, () => EncryptionCounts | undefined>) {
    const registers = [registry];
    new Counter({
      name: "switchboard_decryption_failures_total",
      help: "End-to-end encrypted events the bot could not decrypt when they arrived, by platform and reason",
      labelNames: ["platform", "reason"],
      registers,
      collect() {
        // The adapter's totals are the truth: set each series to them.
        this.reset();
        for (const [platform, counts] of sources)
          for (const [reason, count] of Object.entries(counts()?.decryptionFailures ?? {}))
            this.inc({ platform, reason }, count);
      },
    });
    new Gauge({
      name: "switchboard_undecryptable_events_waiting",
      help: "End-to-end encrypted events kept until their keys arrive (or their sender is asked to resend), by platform",
      labelNames: ["platform"],
      registers,
      collect() {
        this.reset();
        for (const [platform, counts] of sources) {
          const waiting = counts()?.waiting;
          if (waiting !== undefined) this.set({ platform }, waiting);
        }
      },
    });
  }
}
