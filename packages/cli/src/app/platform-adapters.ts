/** Turns the enabled platform sections into adapters, one per section, in a fixed order. */
import type { Adapter, Logger, Store } from "@switchboard/core";
import { createDiscordAdapter } from "@switchboard/discord";
import { createMatrixAdapter } from "@switchboard/matrix";
import { createSlackAdapter } from "@switchboard/slack";
import { PLATFORMS, type Platform } from "../config/platform-sections.ts";
import type { SwitchboardConfig } from "../config/schema.ts";

export interface PlatformAdapterDeps {
  readonly logger: Logger;
  /** Matrix keeps its sync position and login there; absent for `doctor`, which only checks credentials. */
  readonly store?: Store;
}

export function createPlatformAdapters(
  config: SwitchboardConfig,
  deps: PlatformAdapterDeps,
): { platform: Platform; adapter: Adapter }[] {
  const adapters: { platform: Platform; adapter: Adapter }[] = [];
  for (const platform of PLATFORMS) {
    const adapter = createAdapter(platform, config, deps);
    if (adapter) adapters.push({ platform, adapter });
  }
  return adapters;
}

function createAdapter(
  platform: Platform,
  config: SwitchboardConfig,
  deps: PlatformAdapterDeps,
): Adapter | undefined {
  const { logger, store } = deps;
  switch (platform) {
    case "matrix":
      return config.matrix && createMatrixAdapter(config.matrix, { logger, ...(store ? { store } : {}) });
    case "discord":
      return config.discord && createDiscordAdapter(config.discord, { logger });
    case "slack":
      return config.slack && createSlackAdapter(config.slack, { logger });
  }
}
