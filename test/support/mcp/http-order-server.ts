import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { createOrderServer, type SeenCall } from "./order-server.ts";

export interface HttpOrderServer {
  readonly url: string;
  readonly port: number;
  readonly seen: SeenCall[];
  close(): Promise<void>;
}

/**
 * The order-desk MCP server over streamable HTTP on 127.0.0.1, stateless (a fresh server per
 * request, as the SDK's stateless example does). `port` reuses a port: a restart after close().
 */
export async function startHttpOrderServer(port = 0, seen: SeenCall[] = []): Promise<HttpOrderServer> {
  const http: Server = createServer(async (request, response) => {
    if (request.url !== "/mcp") {
      response.writeHead(404).end();
      return;
    }
    const mcp = createOrderServer(seen);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    response.on("close", () => {
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(request, response);
  });
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(port, "127.0.0.1", resolve);
  });
  const bound = (http.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}/mcp`,
    port: bound,
    seen,
    async close() {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
