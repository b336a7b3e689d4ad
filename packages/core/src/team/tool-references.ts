import { SUPERVISOR, type TeamConfig } from "./team-config.ts";

export class UnknownToolError extends Error {
  constructor(agent: string, tool: string, known: readonly string[]) {
    super(
      `team: agent ${agent} lists tool "${tool}", which does not exist (known tools: ${known.join(", ") || "none"})`,
    );
    this.name = "UnknownToolError";
  }
}

/**
 * Every `tools:` entry of every agent that names no known tool. The team refuses to start on the
 * first; `switchboard doctor` reports them all, so both judge a configuration the same way.
 */
export function unknownToolReferences(config: TeamConfig, known: readonly string[]): UnknownToolError[] {
  const agents = [
    { name: SUPERVISOR, tools: config.supervisor.tools },
    ...config.specialists.map((specialist) => ({ name: specialist.name, tools: specialist.tools })),
  ];
  const knownSet = new Set(known);
  return agents.flatMap((agent) =>
    agent.tools
      .filter((tool) => !knownSet.has(tool))
      .map((tool) => new UnknownToolError(agent.name, tool, known)),
  );
}
