import type { AgentIdentity, TeamIdentities } from "../conversation/identity.ts";
import { type DisplayConfig, SUPERVISOR, type TeamConfig } from "./team-config.ts";

/** The faces the team's agents post under, from their `display` in the team config. */
export function teamIdentities(team: Pick<TeamConfig, "supervisor" | "specialists">): TeamIdentities {
  const agents: Record<string, AgentIdentity> = {};
  const add = (agent: string, display: DisplayConfig | undefined) => {
    if (display)
      agents[agent] = display.icon ? { name: display.name, icon: display.icon } : { name: display.name };
  };
  add(SUPERVISOR, team.supervisor.display);
  for (const specialist of team.specialists) add(specialist.name, specialist.display);
  return { agents, singleAgent: team.specialists.length === 0 };
}
