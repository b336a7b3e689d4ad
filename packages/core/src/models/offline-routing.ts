/**
 * The offline model's two decisions, kept pure so they can be tested as tables:
 * which handoff tool a user's words point to, and which agent a system prompt speaks for.
 *
 * Matching is deliberately plain: lowercase words, stop-words removed, a crude stemmer so that
 * "refunds"/"refund" and "booting"/"boot" meet. A tool scores the number of distinct words of the
 * message that appear in its description or its agent name; the best score above zero wins, ties
 * go to the tool bound first, so the choice depends only on the input.
 */

import { contentStems } from "../text/keywords.ts";

export const HANDOFF_TOOL_PREFIX = "transfer_to_";

export interface ToolSummary {
  readonly name: string;
  readonly description: string;
}

export function isHandoffTool(name: string): boolean {
  return name.startsWith(HANDOFF_TOOL_PREFIX) && name.length > HANDOFF_TOOL_PREFIX.length;
}

/** The agent a handoff tool leads to: `transfer_to_tech_support` → `tech_support`. */
export function handoffTarget(toolName: string): string {
  return toolName.slice(HANDOFF_TOOL_PREFIX.length);
}

export function scoreHandoff(messageStems: readonly string[], tool: ToolSummary): number {
  const target = handoffTarget(tool.name).replace(/[_-]+/g, " ");
  const toolStems = new Set(contentStems(`${target} ${tool.description}`));
  return messageStems.filter((word) => toolStems.has(word)).length;
}

/** The handoff tool the message matches best, or undefined when no tool shares a word with it. */
export function pickHandoffTool(message: string, tools: readonly ToolSummary[]): string | undefined {
  const messageStems = contentStems(message);
  let best: { name: string; score: number } | undefined;
  for (const tool of tools) {
    if (!isHandoffTool(tool.name)) continue;
    const score = scoreHandoff(messageStems, tool);
    if (score > 0 && (best === undefined || score > best.score)) best = { name: tool.name, score };
  }
  return best?.name;
}

/**
 * The agent a system prompt speaks for, read from a first line like `You are billing, …` or
 * `You are the supervisor.` (quotes, backticks and `**` around the name are ignored).
 * Undefined when the prompt does not open that way.
 */
export function agentNameFromSystemPrompt(prompt: string): string | undefined {
  const firstLine = prompt.trimStart().split("\n", 1)[0] ?? "";
  const match = /^you are\s+(?:the\s+)?[`"'*]*([\p{L}\p{N}][\p{L}\p{N}_-]*)/iu.exec(firstLine);
  const name = match?.[1];
  if (!name || ["a", "an"].includes(name.toLowerCase())) return undefined;
  return name;
}
