import { tool } from "@langchain/core/tools";
import { z } from "zod";

const PREFIX = "transfer_to_";

export const handoffToolName = (agent: string) => `${PREFIX}${agent}`;

/** The agent a tool call hands off to, or undefined when it is not a handoff. */
export function handoffTarget(toolName: string): string | undefined {
  return toolName.startsWith(PREFIX) ? toolName.slice(PREFIX.length) : undefined;
}

/**
 * A handoff tool: its description is the target's description, so a model (or the offline model's
 * matching) chooses by what each agent is for. Its effect is applied by the tools node, not here.
 */
/** What the supervisor's model reads about a specialist it may hand a conversation to. */
export function handoffDescription(agent: string, description: string): string {
  return `Hand the conversation to ${agent}: ${description}`;
}

export function createHandoffTool(agent: string, description: string) {
  return tool(async () => `Handed the conversation to ${agent}.`, {
    name: handoffToolName(agent),
    description: handoffDescription(agent, description),
    schema: z.object({}),
  });
}
