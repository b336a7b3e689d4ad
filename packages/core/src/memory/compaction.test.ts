import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { pairToolCalls } from "../team/history.ts";
import { planCompaction } from "./compaction.ts";

/** About 25 tokens per message (100 characters; answers count their empty tool-call list too). */
const text = (label: string) => `${label} `.padEnd(100, ".");
const human = (label: string) => new HumanMessage(text(label));
const answer = (label: string) => new AIMessage(text(label));
const toolTurn = (label: string): BaseMessage[] => [
  human(label),
  new AIMessage({
    content: "",
    tool_calls: [{ id: `call-${label}`, name: "lookup", args: { q: label }, type: "tool_call" }],
  }),
  new ToolMessage({ tool_call_id: `call-${label}`, name: "lookup", content: text(`result ${label}`) }),
  answer(`answer ${label}`),
];
const labels = (messages: readonly BaseMessage[]) =>
  messages.map((m) => String(m.content).split(" ")[0] || `(${m.getType()})`);

describe("planCompaction", () => {
  it.each([
    {
      name: "under budget: nothing to do",
      history: [human("q1"), answer("a1")],
      budget: 1_000,
      kept: undefined,
    },
    {
      name: "over budget: the newest turns that fit half the budget",
      history: [human("q1"), answer("a1"), human("q2"), answer("a2"), human("q3"), answer("a3")],
      budget: 120,
      kept: ["q3", "a3"],
    },
    {
      name: "a bigger budget keeps more turns",
      history: [
        human("q1"),
        answer("a1"),
        human("q2"),
        answer("a2"),
        human("q3"),
        answer("a3"),
        human("q4"),
        answer("a4"),
        human("q5"),
        answer("a5"),
      ],
      budget: 220,
      kept: ["q4", "a4", "q5", "a5"],
    },
    {
      name: "the latest turn is kept even when it alone is over",
      history: [human("q1"), answer("a1"), human("q2"), answer("a2"), answer("a2b"), answer("a2c")],
      budget: 60,
      kept: ["q2", "a2", "a2b", "a2c"],
    },
    {
      name: "a single turn cannot be split",
      history: [human("q1"), answer("a1"), answer("a1b"), answer("a1c")],
      budget: 30,
      kept: undefined,
    },
  ])("$name", ({ history, budget, kept }) => {
    const plan = planCompaction(history, budget);
    expect(plan && labels(plan.keep)).toEqual(kept);
    if (plan) expect([...plan.drop, ...plan.keep]).toEqual(history);
  });

  it("never separates a tool call from its result", () => {
    const history = [...toolTurn("t1"), ...toolTurn("t2"), ...toolTurn("t3")];
    for (let budget = 40; budget < 400; budget += 10) {
      const plan = planCompaction(history, budget);
      if (!plan) continue;
      expect(HumanMessage.isInstance(plan.keep[0])).toBe(true);
      // Nothing needed pairing: every kept call has its kept result, and no result lost its call.
      expect(pairToolCalls(plan.keep)).toHaveLength(plan.keep.length);
      const keptCalls = new Set(
        plan.keep.flatMap((m) => (AIMessage.isInstance(m) ? (m.tool_calls ?? []).map((c) => c.id) : [])),
      );
      for (const m of plan.keep)
        if (ToolMessage.isInstance(m)) expect(keptCalls.has(m.tool_call_id)).toBe(true);
    }
  });
});
