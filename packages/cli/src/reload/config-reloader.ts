import { type FSWatcher, watch } from "node:fs";
import { basename, dirname } from "node:path";
import type { Logger } from "@switchboard/core";
import type { LoadedConfig } from "../config/load-config.ts";
import type { SwitchboardConfig } from "../config/schema.ts";
import type { Reconfigured } from "./apply-config.ts";

export type ReloadResult =
  | ({ readonly outcome: "reloaded" } & Reconfigured)
  | { readonly outcome: "refused"; readonly reason: string };

export interface ConfigReloaderOptions {
  /** Reads and validates the file exactly as `start` did (same path, environment and role). */
  readonly load: () => Promise<LoadedConfig>;
  readonly reconfigure: (next: SwitchboardConfig) => Promise<Reconfigured>;
  readonly logger: Logger;
  /** A burst of file events (editors write in steps) becomes one reload after this quiet time. */
  readonly debounceMs?: number;
}

/**
 * Live reload of switchboard.yaml on SIGHUP or when the file changes: the new file is validated
 * like at start; an invalid one is refused with start's own message and the running configuration
 * stays in force. Reloads run one at a time, in order.
 */
export class ConfigReloader {
  readonly #options: ConfigReloaderOptions;
  #chain: Promise<unknown> = Promise.resolve();
  #watcher: FSWatcher | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: ConfigReloaderOptions) {
    this.#options = options;
  }

  reload(trigger: string): Promise<ReloadResult> {
    const next = this.#chain.then(() => this.#reloadOnce(trigger));
    this.#chain = next.catch(() => {});
    return next;
  }

  /**
   * Watches the file's folder (editors replace the file, which a watch on the file itself loses)
   * and reloads after each change settles.
   */
  watch(filePath: string): void {
    const name = basename(filePath);
    this.#watcher = watch(dirname(filePath), (_event, changed) => {
      if (changed !== null && changed !== name) return;
      clearTimeout(this.#timer);
      this.#timer = setTimeout(() => void this.reload("the file changed"), this.#options.debounceMs ?? 300);
      this.#timer.unref?.();
    });
    this.#watcher.unref?.();
  }

  /** Stops watching and waits for a reload under way. */
  async close(): Promise<void> {
    clearTimeout(this.#timer);
    this.#watcher?.close();
    await this.#chain;
  }

  async #reloadOnce(trigger: string): Promise<ReloadResult> {
    const { logger } = this.#options;
    let loaded: LoadedConfig;
    try {
      loaded = await this.#options.load();
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      logger.error("configuration not reloaded: the running configuration stays in force", {
        trigger,
        reason,
      });
      return { outcome: "refused", reason };
    }
    const result = await this.#options.reconfigure(loaded.config);
    logger.info("configuration reloaded", { trigger, changed: result.changed });
    if (result.needsRestart.length > 0)
      logger.warn("configuration changes that need a restart were kept as they were", {
        sections: result.needsRestart,
      });
    return { outcome: "reloaded", ...result };
  }
}
