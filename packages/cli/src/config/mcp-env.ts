import type { Environment } from "./env-overrides.ts";
import { envValue } from "./env-overrides.ts";
import type { SwitchboardConfig } from "./schema.ts";

/**
 * Copies the variables each stdio MCP server names in `passEnv` from Switchboard's environment
 * into its `env` (a variable that is not set is left out). Only named ones: a child process never
 * sees the rest of Switchboard's secrets.
 */
export function withPassedEnv(config: SwitchboardConfig, env: Environment): SwitchboardConfig {
  if (!config.mcp.servers.some((server) => server.transport === "stdio" && server.passEnv.length > 0))
    return config;
  const servers = config.mcp.servers.map((server) => {
    if (server.transport !== "stdio" || server.passEnv.length === 0) return server;
    const passed: Record<string, string> = {};
    for (const name of server.passEnv) {
      const value = envValue(env, name);
      if (value !== undefined) passed[name] = value;
    }
    return { ...server, env: { ...passed, ...server.env } };
  });
  return { ...config, mcp: { ...config.mcp, servers } };
}
