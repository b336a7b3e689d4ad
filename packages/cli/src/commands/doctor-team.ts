import { SEARCH_MEMORY, unknownToolReferences } from "@switchboard/core/host";
import type { OpenedTools } from "../app/tools.ts";
import type { LoadedConfig } from "../config/load-config.ts";
import type { CheckResult } from "./doctor-result.ts";

/**
 * The agents `start` would build, and every tool they name, judged by the same check the team
 * runs at start-up against the same catalog (HTTP tools, MCP servers' tools, the built-in ones).
 */
export function checkTeam(loaded: LoadedConfig, tools: OpenedTools): CheckResult[] {
  const { team } = loaded.config;
  const agents = ["supervisor", ...team.specialists.map((specialist) => specialist.name)];
  const known = [...Object.keys(tools.registry), SEARCH_MEMORY];
  const unknown = unknownToolReferences(team, known).map(
    (error): CheckResult => ({
      name: "team",
      status: "problem",
      detail: error.message.replace(/^team: /, ""),
      fix: "correct the name in the agent's tools: list (start refuses this configuration)",
    }),
  );
  const alone = team.specialists.length === 0 ? " (no specialists: the supervisor answers everything)" : "";
  return [{ name: "team", status: "ok", detail: `${agents.join(", ")}${alone}` }, ...unknown];
}
