/**
 * What the process records about its work: the run-steps log, usage roll-ups and Prometheus
 * metrics. Metrics exist whenever the HTTP server does, since that is where they are read.
 */
import {
  createObservability,
  type EngineHealth,
  type Logger,
  type McpServers,
  type Observability,
  type Store,
  systemClock,
} from "@switchboard/core";
import {
  componentLogger,
  type EncryptionCounts,
  EncryptionMetrics,
  SwitchboardMetrics,
} from "@switchboard/core/host";
import type { SwitchboardConfig } from "../config/schema.ts";
import type { PlatformAdapter } from "./platform-adapters.ts";

export interface ConfiguredObservability {
  /** Absent without `http:`. */
  readonly metrics: SwitchboardMetrics | undefined;
  readonly observability: Observability;
}

export function createConfiguredObservability(
  config: SwitchboardConfig,
  deps: {
    store: Store;
    toolServers: McpServers;
    /**
     * Metrics are built before the engine (it reports to them); they read its health once it
     * exists, so this answers `undefined` until then.
     */
    engineHealth: () => EngineHealth | undefined;
    logger: Logger;
  },
): ConfiguredObservability {
  const { store, toolServers } = deps;
  const metrics = config.http
    ? new SwitchboardMetrics({
        atomic: store.atomic,
        toolServers: () => toolServers.states(),
        engineHealth: deps.engineHealth,
      })
    : undefined;
  const observability = createObservability({
    store,
    steps: config.steps,
    usage: config.usage,
    clock: systemClock,
    logger: componentLogger(deps.logger, "steps"),
    metrics,
  });
  return { metrics, observability };
}

/** Decryption failures and events waiting for keys, for the platforms that encrypt (read when scraped). */
export function registerEncryptionMetrics(
  metrics: SwitchboardMetrics,
  adapters: readonly PlatformAdapter[],
): void {
  const sources = new Map<string, () => EncryptionCounts | undefined>();
  for (const { platform, encryptionCounts } of adapters)
    if (encryptionCounts) sources.set(platform, encryptionCounts);
  if (sources.size > 0) new EncryptionMetrics(metrics.registry, sources);
}
