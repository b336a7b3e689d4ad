/**
 * The offline model's two decisions, kept pure so they can be tested as tables:
 * which handoff tool a user's words point to, and which agent a system prompt speaks for.
 *
 * Matching is deliberately plain: lowercase words, stop-words removed, a crude stemmer so that
 * "refunds"/"refund" and "booting"/"boot" meet. A tool scores the number of distinct words of the
 * message that appear in its description or its agent name; the best score above zero wins, ties
 * go to the tool bound first, so the choice depends only on the input.
 */

export const HANDOFF_TOOL_PREFIX = "transfer_to_";

export interface ToolSummary {
  readonly name: string;
  readonly description: string;
}

// Words that say nothing about *which* specialist is wanted ("I need help with a problem").
const STOP_WORDS = new Set(
  (
    "a about again all also am an and any are as at be been being but by can cant could did didnt do does " +
    "doesnt dont for from get got had has have having he her here hers him his how i if im in into is isnt " +
    "it its ive just me my myself need needs no not now of off on once only or our ours out over please " +
    "should so some than thank thanks that the their them then there these they this those to too up us " +
    "very want wants was wasnt we were what when where which while who why will with wont would you your " +
    "yours hi hello hey help problem problems issue issues question questions thing something someone anything"
  ).split(" "),
);

/** Strips the commonest English endings; only when at least three letters remain. */
export function stem(word: string): string {
  let stemmed = word;
  if (stemmed.endsWith("ies") && stemmed.length > 5) stemmed = `${stemmed.slice(0, -3)}y`;
  else if (stemmed.endsWith("ing") && stemmed.length > 5) stemmed = stemmed.slice(0, -3);
  else if (stemmed.endsWith("ed") && stemmed.length > 4) stemmed = stemmed.slice(0, -2);
  else if (stemmed.endsWith("s") && !stemmed.endsWith("ss") && stemmed.length > 3)
    stemmed = stemmed.slice(0, -1);
  // "invoice"/"invoic(es)" and "schedule"/"schedul(ing)" only meet once a final "e" is dropped too.
  if (stemmed.endsWith("e") && stemmed.length > 3) stemmed = stemmed.slice(0, -1);
  return stemmed;
}

/** Distinct stems of the content words of `text`, in first-seen order. */
export function contentStems(text: string): string[] {
  const words = text
    .toLowerCase()
    .replace(/['’]/g, "")
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length > 1 && !STOP_WORDS.has(word));
  return [...new Set(words.map(stem))];
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
