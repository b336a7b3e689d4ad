import { describeMcpServer, type Logger, McpServers } from "@switchboard/core";
import type { LoadedConfig } from "../config/load-config.ts";
import { cliVersion } from "../version.ts";
import type { CheckResult } from "./doctor-checks.ts";

/**
 * Connects to each configured MCP server as start-up would (one attempt, within its connect
 * timeout), lists its tools, and disconnects. A stdio server's process is started and stopped.
 */
export async function checkMcpServers(loaded: LoadedConfig, logger: Logger): Promise<CheckResult[]> {
  const configs = loaded.config.mcp.servers;
  if (configs.length === 0) return [{ name: "mcp", status: "ok", detail: "no MCP servers configured" }];
  const servers = await McpServers.start(configs, { logger, clientVersion: cliVersion() });
  try {
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
  } finally {
    await servers.close();
  }
}
