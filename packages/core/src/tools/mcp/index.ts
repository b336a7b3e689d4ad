export {
  type McpConfig,
  type McpServerConfig,
  mcpConfigSchema,
  mcpServerConfigSchema,
} from "./mcp-config.ts";
export {
  type McpServerState,
  type McpServerStatus,
  McpServerUnavailableError,
  McpToolTimeoutError,
} from "./mcp-server-link.ts";
export { McpServers, type McpServersOptions } from "./mcp-servers.ts";
export type { ConnectMcpSession, McpSession } from "./mcp-session.ts";
export { describeMcpServer, mcpStatusLines } from "./mcp-status.ts";
export { catalogToolName, matchesPattern } from "./tool-patterns.ts";
