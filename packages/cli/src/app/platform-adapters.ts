/**
 * Turns the enabled platform sections into adapters. Each adapter package exports
 * `createXAdapter(config)`; until one does, starting with its section fails with a clear message
 * (replace the matching `pending(…)` line with the package's factory).
 */
import type { Adapter, Logger } from "@switchboard/core";
import { PLATFORM_TITLES, type Platform } from "../config/platform-sections.ts";
import type { SwitchboardConfig } from "../config/schema.ts";

/** The platform is configured, but this build has no adapter for it. */
export class AdapterUnavailableError extends Error {
  readonly platform: Platform;
  constructor(platform: Platform) {
    super(
      `${PLATFORM_TITLES[platform]} is enabled in the configuration (${platform}:), but this build has no ${PLATFORM_TITLES[platform]} adapter yet; remove the ${platform}: section to start without it`,
    );
    this.name = "AdapterUnavailableError";
    this.platform = platform;
  }
}

export interface PlatformAdapterDeps {
  readonly logger: Logger;
}

type AdapterFactory = (section: unknown, deps: PlatformAdapterDeps) => Adapter;

const pending =
  (platform: Platform): AdapterFactory =>
  () => {
    throw new AdapterUnavailableError(platform);
  };

const ADAPTER_FACTORIES: Record<Platform, AdapterFactory> = {
  matrix: pending("matrix"),
  discord: pending("discord"),
  slack: pending("slack"),
};

/** One adapter per platform section present in the configuration, in a fixed order. */
export function createPlatformAdapters(
  config: SwitchboardConfig,
  deps: PlatformAdapterDeps,
): { platform: Platform; adapter: Adapter }[] {
  return (["matrix", "discord", "slack"] as const)
    .filter((platform) => config[platform] !== undefined)
    .map((platform) => ({ platform, adapter: ADAPTER_FACTORIES[platform](config[platform], deps) }));
}
