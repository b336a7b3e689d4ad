import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type McpServerConfig, McpServers } from "@switchboard/core";
import { startHttpOrderServer } from "../test/support/mcp/http-order-server.ts";
import { httpOrderServerConfig, stdioOrderServer } from "../test/support/mcp/order-servers.ts";
import type { Figure } from "./support/figures.ts";
import { percentile, round } from "./support/stats.ts";

const CALLS = 300;
const WARM_UP = 30;

export interface McpToolsOptions {
  /** Stop calling after this long (the figures then rest on fewer samples). */
  readonly timeBoxMs: number;
}

/**
 * What Switchboard adds to one MCP tool call: the catalog tool (argument check against the
 * server's schema, request context into `_meta` and headers, result conversion and cap) against
 * the official SDK client calling the same tool on its own connection to the same server. The two
 * are interleaved call by call, so other work on the machine slows both alike. Also: how long
 * start-up waits for a stdio and an HTTP server to connect and list their tools.
 */
export async function measureMcpTools(options: McpToolsOptions): Promise<Figure[]> {
  const stdio = await stdioOrderServer();
  const http = await startHttpOrderServer();
  try {
    const figures: Figure[] = [];
    for (const [transport, config] of [
      ["Stdio", stdio.config],
      ["Http", httpOrderServerConfig(http.url)],
    ] as const) {
      const connectStarted = performance.now();
      const servers = await McpServers.start([config]);
      const connectMs = performance.now() - connectStarted;
      const raw = await rawClient(config);
      try {
        const tool = servers.entries().find((entry) => entry.tool.name === "orders__lookup_order")?.tool;
        if (!tool) throw new Error("the order server did not list lookup_order");
        const runConfig = (i: number) => ({
          configurable: {
            thread_id: "bench:t",
            request_id: "req-bench",
            run_id: "run-bench",
            tool_call_id: `c${i}`,
          },
        });
        const catalogMs: number[] = [];
        const sdkMs: number[] = [];
        const deadline = performance.now() + options.timeBoxMs;
        for (let i = 0; i < WARM_UP + CALLS && performance.now() < deadline; i++) {
          const args = { orderId: `A-${i}` };
          let started = performance.now();
          await tool.invoke(args, runConfig(i));
          const viaCatalog = performance.now() - started;
          started = performance.now();
          await raw.callTool({ name: "lookup_order", arguments: args });
          const viaSdk = performance.now() - started;
          if (i < WARM_UP) continue;
          catalogMs.push(viaCatalog);
          sdkMs.push(viaSdk);
        }
        const note = `${catalogMs.length} calls of lookup_order, interleaved with the SDK's own`;
        figures.push(
          {
            key: `mcp${transport}ConnectMs`,
            value: round(connectMs, 0),
            unit: "ms",
            note: "McpServers.start: spawn or reach the server, MCP handshake, list tools",
          },
          {
            key: `mcp${transport}CallP50Ms`,
            value: round(percentile(catalogMs, 50)),
            unit: "ms",
            baseline: { label: "SDK client alone, p50", value: round(percentile(sdkMs, 50)) },
            note,
          },
          {
            key: `mcp${transport}CallP95Ms`,
            value: round(percentile(catalogMs, 95)),
            unit: "ms",
            baseline: { label: "SDK client alone, p95", value: round(percentile(sdkMs, 95)) },
            note,
          },
        );
      } finally {
        await raw.close();
        await servers.close();
      }
    }
    return figures;
  } finally {
    await http.close();
    await stdio.cleanup();
  }
}

async function rawClient(config: McpServerConfig): Promise<Client> {
  const client = new Client({ name: "bench", version: "0" });
  const transport =
    config.transport === "stdio"
      ? new StdioClientTransport({ command: config.command, args: config.args, env: config.env })
      : new StreamableHTTPClientTransport(new URL(config.url));
  await client.connect(transport);
  return client;
}
