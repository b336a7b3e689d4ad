import { createHttpTool, type Logger, McpServers, type Store, ToolCatalog } from "@switchboard/core";
import { type CatalogEntry, mcpStatusLines, type ToolFiles } from "@switchboard/core/host";
import type { SwitchboardConfig } from "../config/schema.ts";
import { cliVersion } from "../version.ts";

export interface OpenedTools {
  readonly catalog: ToolCatalog;
  readonly mcp: McpServers;
  /** Tools by name for the team, with placeholders for MCP tools agents list whose server is down. */
  readonly registry: ReturnType<ToolCatalog["registry"]>;
  /** `/status` lines about the tool servers, for admins (`requests.admins`) only. */
  statusLinesFor(viewer: string): string[];
  close(): Promise<void>;
}

/**
 * The tool catalog of one process: configured HTTP tools and every MCP server's tools (the files they
 * return kept in `files`, when attachments are on). MCP servers
 * are connected here (each first attempt waited for, bounded by its connect timeout); one that is
 * down keeps reconnecting in the background and never stops start-up.
 */
export async function openTools(
  config: SwitchboardConfig,
  deps: { store: Store; logger: Logger; files?: ToolFiles },
): Promise<OpenedTools> {
  const mcp = await McpServers.start(config.mcp.servers, {
    logger: deps.logger,
    clientVersion: cliVersion(),
    ...(deps.files ? { files: deps.files } : {}),
  });
  const http: CatalogEntry[] = config.tools.map((tool) => ({
    tool: createHttpTool(tool, deps.files ? { files: deps.files } : {}),
    requiresApproval: tool.requiresApproval,
    ...(tool.status === undefined ? {} : { status: tool.status }),
  }));
  const catalog = new ToolCatalog(http, deps.store, [mcp]);
  const listed = [config.team.supervisor, ...config.team.specialists].flatMap((agent) => agent.tools);
  const admins = new Set(config.requests.admins);
  return {
    catalog,
    mcp,
    registry: catalog.registry(listed),
    statusLinesFor: (viewer) => (admins.has(viewer) ? mcpStatusLines(mcp.states(), Date.now()) : []),
    close: () => mcp.close(),
  };
}
