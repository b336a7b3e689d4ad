import type { Learning } from "./learning-store.ts";
import type { LearningScope } from "./learnings-config.ts";

const HEADINGS: Readonly<Record<LearningScope, string>> = {
  user: "About the person writing to you",
  conversation: "About this conversation",
  place: "About this place (channel or room)",
};

/** The order scopes fill the budget in: what is about the person matters most. */
const ORDER: readonly LearningScope[] = ["user", "conversation", "place"];

/** chars / 4, the same estimate as the rest of the prompt's budgets. */
function tokensOf(text: string): number {
  return Math.ceil(text.length / 4);
}

/**
 * The learnings section of a prompt: newest first within each scope, the person's before the
 * conversation's before the place's, until `tokenBudget` is spent. Each line carries its id, so an
 * agent can `forget_learning` one a person says is wrong. Empty when there is nothing to tell.
 */
export function composeLearnings(
  lists: Partial<Record<LearningScope, readonly Learning[]>>,
  tokenBudget: number,
): string {
  const intro =
    "## Learnings you keep (remember adds one, forget_learning deletes one; people see them with /learnings)";
  let spent = tokensOf(intro);
  const sections: string[] = [];
  for (const scope of ORDER) {
    const list = lists[scope] ?? [];
    const lines: string[] = [];
    for (const learning of [...list].reverse()) {
      const line = `- [${learning.id}] ${learning.text}`;
      const cost = tokensOf(line) + (lines.length === 0 ? tokensOf(HEADINGS[scope]) : 0);
      if (spent + cost > tokenBudget) break;
      spent += cost;
      lines.push(line);
    }
    if (lines.length > 0) sections.push(`${HEADINGS[scope]}:\n${lines.join("\n")}`);
  }
  return sections.length === 0 ? "" : [intro, ...sections].join("\n");
}
