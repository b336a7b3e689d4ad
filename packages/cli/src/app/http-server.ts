import type { HttpConfig, Logger, RequestTracking } from "@switchboard/core";
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
    }),
    ...(metrics ? { metrics: () => metrics.exposition() } : {}),
    logger: deps.logger,
    ...(deps.mounts ? { mounts: deps.mounts } : {}),
  });
}
