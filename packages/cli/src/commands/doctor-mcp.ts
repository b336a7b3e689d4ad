import { describeMcpServer } from "@switchboard/core/host";
import type { OpenedTools } from "../app/tools.ts";
import type { LoadedConfig } from "../config/load-config.ts";
import type { CheckResult } from "./doctor-result.ts";

/**
 * Each configured MCP server as start-up left it (one connection attempt, within its connect
 * timeout, made by openTools), with the tools it lists. A stdio server's process was started.
 */
export function checkMcpServers(loaded: LoadedConfig, tools: OpenedTools): CheckResult[] {
  const configs = loaded.config.mcp.servers;
  if (configs.length === 0) return [{ name: "mcp", status: "ok", detail: "no MCP servers configured" }];
  const servers = tools.mcp;
  const now = Date.now();
  return servers.states().map((state): CheckResult => {
    if (state.status === "connected") {
      const names = servers
        .entries()
        .map((entry) => entry.tool.name)
        .filter((name) => name.startsWith(`${state.name}__`));
      const listed =
        names.length > 0 ? ` (${names.join(", ")})` : " — none offered: check allowTools/denyTools";
      return { name: "mcp", status: "ok", detail: `${describeMcpServer(state, now)}${listed}` };
    }
    const config = configs.find((candidate) => candidate.name === state.name);
    return {
      name: "mcp",
      status: "problem",
      detail: `${state.name} (${state.transport}): ${state.lastError ?? state.status}`,
      fix:
        config?.transport === "stdio"
          ? `run \`${[config.command, ...config.args].join(" ")}\` by hand to see why it does not start`
          : "check the url and headers, and that the server is running",
    };
  });
}
