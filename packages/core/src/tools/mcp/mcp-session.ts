/**
 * One live connection to one MCP server, on the official SDK; its tools become LangChain tools
 * through `@langchain/mcp-adapters`. Imported only when `mcp.servers` is configured: the SDK and
 * its transports are not loaded otherwise.
 */
import type { AsyncLocalStorage } from "node:async_hooks";
import type { DynamicStructuredTool } from "@langchain/core/tools";
import { loadMcpTools } from "@langchain/mcp-adapters";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { requestContextHeaders, type ToolRequestContext } from "../request-context.ts";
import type { McpServerConfig } from "./mcp-config.ts";

export interface McpSession {
  /** The server's tools under their own names. */
  readonly tools: readonly DynamicStructuredTool[];
  /** Resolves when the server answers a ping in time; rejects otherwise. */
  ping(timeoutMs: number): Promise<void>;
  /** Called once when the connection ends without `close()` (the server exited or hung up). */
  onLost(listener: (reason: string) => void): void;
  close(): Promise<void>;
}

export interface McpSessionOptions {
  /** The request context of the tool call being made, read when the call goes out. */
  readonly context: AsyncLocalStorage<ToolRequestContext>;
  readonly clientVersion: string;
}

export type ConnectMcpSession = (config: McpServerConfig, options: McpSessionOptions) => Promise<McpSession>;

/** What the server printed last on stderr: the reason a command failed to start is usually there. */
const STDERR_TAIL_CHARS = 1_000;

export const connectMcpSession: ConnectMcpSession = async (config, options) => {
  const { context } = options;
  // Each call carries who it serves in `_meta` (every transport) and in headers (HTTP, below).
  class ContextClient extends Client {
    override callTool(...[params, schema, requestOptions]: Parameters<Client["callTool"]>) {
      const meta = metaOf(context.getStore());
      return super.callTool(
        meta ? { ...params, _meta: { ...params._meta, ...meta } } : params,
        schema,
        requestOptions,
      );
    }
  }
  const client = new ContextClient({ name: "switchboard", version: options.clientVersion });
  let stderrTail = "";
  let transport: Transport;
  if (config.transport === "stdio") {
    const stdio = new StdioClientTransport({
      command: config.command,
      args: config.args,
      env: config.env,
      ...(config.cwd ? { cwd: config.cwd } : {}),
      stderr: "pipe",
    });
    stdio.stderr?.on("data", (chunk: Buffer) => {
      stderrTail = (stderrTail + chunk.toString("utf8")).slice(-STDERR_TAIL_CHARS);
    });
    transport = stdio;
  } else {
    transport = new StreamableHTTPClientTransport(new URL(config.url), {
      requestInit: { headers: config.headers },
      fetch: (url, init) => {
        const current = context.getStore();
        if (!current) return fetch(url, init);
        const headers = new Headers(init?.headers);
        for (const [name, value] of Object.entries(requestContextHeaders(current))) headers.set(name, value);
        return fetch(url, { ...init, headers });
      },
    });
  }

  let closing = false;
  let lostListener: ((reason: string) => void) | undefined;
  let lostReason: string | undefined;
  client.onclose = () => {
    if (closing) return;
    lostReason = stderrTail.trim() ? `the server exited: ${lastLines(stderrTail)}` : "the connection closed";
    lostListener?.(lostReason);
  };
  const timeoutMs = config.connectTimeoutSeconds * 1000;
  try {
    await client.connect(transport, { timeout: timeoutMs });
    const tools = await loadMcpTools(config.name, client, {
      throwOnLoadError: false,
      prefixToolNameWithServerName: false,
      // Every block (embedded resources too) comes back as content: a tool's images and resources
      // become files the answer carries (see mcpResultParts), none is dropped as an artifact.
      outputHandling: "content",
    });
    return {
      tools,
      async ping(ms) {
        await client.ping({ timeout: ms });
      },
      onLost(listener) {
        lostListener = listener;
        if (lostReason) listener(lostReason);
      },
      async close() {
        closing = true;
        await client.close();
      },
    };
  } catch (error) {
    closing = true;
    // The failure to connect is what the operator needs; a failure to tidy up after it is not.
    await client.close().catch(() => undefined);
    const detail = error instanceof Error ? error.message : String(error);
    throw new Error(stderrTail.trim() ? `${detail} (stderr: ${lastLines(stderrTail)})` : detail);
  }
};

function metaOf(context: ToolRequestContext | undefined): Record<string, string> | undefined {
  if (!context) return undefined;
  const meta: Record<string, string> = {};
  if (context.requestId) meta["switchboard/requestId"] = context.requestId;
  if (context.runId) meta["switchboard/runId"] = context.runId;
  if (context.conversation) meta["switchboard/conversation"] = context.conversation;
  if (context.idempotencyKey) meta["switchboard/idempotencyKey"] = context.idempotencyKey;
  return Object.keys(meta).length > 0 ? meta : undefined;
}

/** The last few lines: npm and friends put the cause above a closing "see the log" line. */
function lastLines(text: string): string {
  const lines = text
    .trim()
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);
  return lines.slice(-3).join(" | ").slice(-400);
}
