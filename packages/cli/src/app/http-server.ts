import { type HttpConfig, type Logger, type RequestTracking, startHttpServer } from "@switchboard/core";

export type HttpServer = Awaited<ReturnType<typeof startHttpServer>>;

/** The `http:` section: health for probes, signed run webhooks when a secret is configured. */
export function startConfiguredHttpServer(
  config: HttpConfig,
  deps: { tracking: RequestTracking; logger: Logger },
): Promise<HttpServer> {
  const startedAt = Date.now();
  return startHttpServer({
    host: config.host,
    port: config.port,
    ...(deps.tracking.webhooks ? { webhooks: deps.tracking.webhooks } : {}),
    health: async () => ({
      uptimeSeconds: Math.round((Date.now() - startedAt) / 1000),
      openRequests: (await deps.tracking.tracker.openRequests()).length,
    }),
    logger: deps.logger,
  });
}
