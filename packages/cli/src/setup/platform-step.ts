import type { CommandSummary } from "@switchboard/core/adapter";
import type { Environment } from "../config/env-overrides.ts";
import type { LoadedConfig } from "../config/load-config.ts";
import { type Asker, SetupStopped } from "./asker.ts";

export interface StepContext {
  readonly asker: Asker;
  readonly env: Environment;
  readonly commands: readonly CommandSummary[];
}

/** What one platform's part of setup produced. */
export interface PlatformStep {
  /** The section for switchboard.yaml (no secrets). */
  readonly section: Record<string, unknown>;
  /** Variables for switchboard.env. */
  readonly secrets: Record<string, string>;
  /** Runs once both files are written (e.g. registering slash commands); false when it failed. */
  readonly afterWrite?: (loaded: LoadedConfig) => Promise<boolean>;
}

/** Tries a live check; on failure, asks (in the terminal) whether to enter the answers again. */
export async function untilAccepted<T>(asker: Asker, what: string, attempt: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      asker.problem((error as Error).message);
      if (!asker.interactive || !(await asker.confirm(`retry.${what}`, `Try ${what} again?`, true)))
        throw new SetupStopped(`${what} was not accepted; nothing was written`);
    }
  }
}
