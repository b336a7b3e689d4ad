import type { EngineHealth, HttpConfig, Logger, RequestTracking } from "@switchboard/core";
import { type HttpServerOptions, type SwitchboardMetrics, startHttpServer } from "@switchboard/core/host";

export type HttpServer = Awaited<ReturnType<typeof startHttpServer>>;

/**
 * The `http:` section: health for probes, Prometheus metrics, signed run webhooks when a secret is
 * configured, and the mounted handlers (the operator console).
 */
export function startConfiguredHttpServer(
  config: HttpConfig,
  deps: {
    tracking: RequestTracking;
    logger: Logger;
    metrics?: SwitchboardMetrics | undefined;
    mounts?: HttpServerOptions["mounts"];
    /** Turns in progress and waiting, the CPU slots and each model endpoint's limit, for /health. */
    engineHealth?: () => EngineHealth;
  },
): Promise<HttpServer> {
  const startedAt = Date.now();
  const metrics = deps.metrics;
  return startHttpServer({
    host: config.host,
    port: config.port,
    ...(deps.tracking.webhooks ? { webhooks: deps.tracking.webhooks } : {}),
    health: async () => ({
      uptimeSeconds: Math.round((Date.now() - startedAt) / 1000),
      openRequests: await deps.tracking.tracker.openCount(),
      ...(deps.engineHealth ? capacityOf(deps.engineHealth()) : {}),
    }),
    ...(metrics ? { metrics: () => metrics.exposition() } : {}),
    logger: deps.logger,
    ...(deps.mounts ? { mounts: deps.mounts } : {}),
  });
}

/** What /health says about capacity: turns against the ceiling, the CPU slots, each model endpoint. */
function capacityOf(health: EngineHealth) {
  return {
    turns: {
      inProgress: health.runningTurns,
      max: health.maxTurns,
      waitingToStart: health.waitingToStart,
      cpuSlots: health.cpuSlots,
      eventLoopDelayP99Ms: Math.round(health.eventLoop.delayP99Ms),
    },
    modelEndpoints: health.modelEndpoints.map(
      ({ endpoint, limit, inFlight, queued, pausedUntil, circuit }) => ({
        endpoint,
        limit,
        inFlight,
        queued,
        // `open`: the provider failed repeatedly; turns go straight to their later retry.
        circuit: circuit ?? "closed",
        ...(pausedUntil === undefined ? {} : { pausedUntil: new Date(pausedUntil).toISOString() }),
      }),
    ),
  };
}
