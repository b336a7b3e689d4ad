/**
 * Turns the enabled platform sections into adapters, one per section, in a fixed order. Each
 * platform's SDK is loaded by its `create…Adapter`, so only the SDKs of enabled platforms load.
 */

import type { Logger, Store } from "@switchboard/core";
import type { Adapter } from "@switchboard/core/adapter";
import { createDiscordAdapter } from "@switchboard/discord";
import { createMatrixAdapter } from "@switchboard/matrix";
import { createSlackAdapter } from "@switchboard/slack";
import { PLATFORMS, type Platform } from "../config/platform-sections.ts";
import type { SwitchboardConfig } from "../config/schema.ts";

export interface PlatformAdapterDeps {
  readonly logger: Logger;
  /**
   * Matrix keeps its sync position and login there, Discord and Slack what answering a slash command
   * needs (for whichever process delivers it); absent for `doctor`, which only checks credentials.
   */
  readonly store?: Store;
}

export interface PlatformAdapter {
  readonly platform: Platform;
  readonly adapter: Adapter;
}

export async function createPlatformAdapters(
  config: SwitchboardConfig,
  deps: PlatformAdapterDeps,
): Promise<PlatformAdapter[]> {
  const adapters: PlatformAdapter[] = [];
  for (const platform of PLATFORMS) {
    const adapter = await createAdapter(platform, config, deps);
    if (adapter) adapters.push({ platform, adapter });
  }
  return adapters;
}

async function createAdapter(
  platform: Platform,
  config: SwitchboardConfig,
  deps: PlatformAdapterDeps,
): Promise<Adapter | undefined> {
  const { logger, store } = deps;
  const adapterDeps = { logger, ...(store ? { store } : {}) };
  switch (platform) {
    case "matrix":
      return config.matrix && createMatrixAdapter(config.matrix, adapterDeps);
    case "discord":
      return config.discord && createDiscordAdapter(config.discord, adapterDeps);
    case "slack":
      return config.slack && createSlackAdapter(config.slack, adapterDeps);
  }
}
