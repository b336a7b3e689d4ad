/**
 * Turns the enabled platform sections into adapters, one per section, in a fixed order. Each
 * platform's SDK is loaded by its `create…Adapter`, so only the SDKs of enabled platforms load.
 */

import type { Logger, Store } from "@switchboard/core";
import type { Adapter, EncryptionCounts } from "@switchboard/core/adapter";
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
  /**
   * A cluster's processes: asks the process that leads a platform's inbound connection (a worker's
   * Matrix adapter encrypts through the leader, which holds the bot's one device).
   */
  readonly callLeader?: (platform: Platform, request: unknown) => Promise<unknown>;
}

export interface PlatformAdapter {
  readonly platform: Platform;
  readonly adapter: Adapter;
  /** End-to-end encryption figures for the metrics, on platforms that have it (Matrix). */
  readonly encryptionCounts?: () => EncryptionCounts | undefined;
  /** What the process leading this platform's inbound connection answers other processes' calls with. */
  readonly answerLeaderCalls?: (request: unknown) => Promise<unknown>;
}

export async function createPlatformAdapters(
  config: SwitchboardConfig,
  deps: PlatformAdapterDeps,
): Promise<PlatformAdapter[]> {
  const adapters: PlatformAdapter[] = [];
  for (const platform of PLATFORMS) {
    const entry = await createAdapter(platform, config, deps);
    if (entry) adapters.push(entry);
  }
  return adapters;
}

async function createAdapter(
  platform: Platform,
  config: SwitchboardConfig,
  deps: PlatformAdapterDeps,
): Promise<PlatformAdapter | undefined> {
  const { logger, store, callLeader } = deps;
  const adapterDeps = { logger, ...(store ? { store } : {}) };
  switch (platform) {
    case "matrix": {
      if (!config.matrix) return undefined;
      const adapter = await createMatrixAdapter(config.matrix, {
        ...adapterDeps,
        ...(callLeader ? { encryptThroughLeader: (request) => callLeader("matrix", request) } : {}),
      });
      return {
        platform,
        adapter,
        encryptionCounts: () => adapter.encryptionCounts(),
        answerLeaderCalls: (request) => adapter.encryptForSendOnly(request),
      };
    }
    case "discord":
      return config.discord && { platform, adapter: await createDiscordAdapter(config.discord, adapterDeps) };
    case "slack":
      return config.slack && { platform, adapter: await createSlackAdapter(config.slack, adapterDeps) };
  }
}
