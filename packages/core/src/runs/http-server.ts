import { createServer, type IncomingMessage, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "../runtime/logger.ts";
import type { WebhookReceiver } from "./webhook-receiver.ts";

const MAX_BODY_BYTES = 1024 * 1024;

export interface HttpServerOptions {
  readonly host: string;
  readonly port: number;
  /** Absent: /webhooks/runs answers 404 (no secret configured). */
  readonly webhooks?: WebhookReceiver;
  readonly health: () => Promise<Record<string, unknown>>;
  /** Absent: /metrics answers 404. */
  readonly metrics?: () => Promise<{ contentType: string; body: string }>;
  readonly logger: Logger;
  /** Further handlers, each owning every path under its prefix (e.g. the operator console at `/console`). */
  readonly mounts?: readonly { readonly prefix: string; readonly listener: RequestListener }[];
}

/** The built-in HTTP server: `GET /health`, `GET /metrics` and `POST /webhooks/runs`. */
export async function startHttpServer(
  options: HttpServerOptions,
): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://localhost").pathname;
    const mount = options.mounts?.find(({ prefix }) => path === prefix || path.startsWith(`${prefix}/`));
    if (mount) {
      mount.listener(request, response);
      return;
    }
    if (path === "/metrics" && options.metrics && request.method === "GET") {
      void options
        .metrics()
        .then(({ contentType, body }) => {
          response.writeHead(200, { "content-type": contentType });
          response.end(body);
        })
        .catch((error: unknown) => {
          options.logger.error("metrics collection failed", { error });
          response.writeHead(500, { "content-type": "text/plain" });
          response.end("metrics collection failed\n");
        });
      return;
    }
    void route(request, options)
      .then(({ status, body }) => {
        response.writeHead(status, { "content-type": "application/json" });
        response.end(JSON.stringify(body));
      })
      .catch((error: unknown) => {
        options.logger.error("http request failed", { path: request.url, error });
        response.writeHead(500, { "content-type": "application/json" });
        response.end(JSON.stringify({ error: "internal error" }));
      });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${options.host.includes(":") ? `[${options.host}]` : options.host}:${port}`;
  options.logger.info("http server listening", {
    url,
    webhooks: options.webhooks ? "on" : "off (no webhook secret)",
  });
  return {
    url,
    close: () =>
      new Promise((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Open event streams (the console's live pages) would otherwise hold the server open.
        server.closeAllConnections();
      }),
  };
}

async function route(
  request: IncomingMessage,
  options: HttpServerOptions,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const path = new URL(request.url ?? "/", "http://localhost").pathname;
  if (request.method === "GET" && path === "/health")
    return { status: 200, body: { status: "ok", ...(await options.health()) } };
  if (path === "/webhooks/runs" && options.webhooks) {
    if (request.method !== "POST") return { status: 405, body: { error: "use POST" } };
    const body = await readBody(request);
    if (body === undefined)
      return { status: 413, body: { error: `body larger than ${MAX_BODY_BYTES} bytes` } };
    const header = (name: string) => {
      const value = request.headers[name];
      return Array.isArray(value) ? value[0] : value;
    };
    return options.webhooks.receive(
      { timestamp: header("x-switchboard-timestamp"), signature: header("x-switchboard-signature") },
      body,
    );
  }
  return { status: 404, body: { error: "not found" } };
}

async function readBody(request: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}
