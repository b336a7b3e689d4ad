import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { silentLogger } from "../runtime/logger.ts";
import { openStore } from "../store/open-store.ts";
import { pairToolCalls } from "../team/history.ts";
import { KeyvArchiveStore } from "./archive/keyv-archive-store.ts";
import { HistoryCompactor, planCompaction } from "./compaction.ts";
import { ControlState } from "./control-state.ts";
import { MemoryAgent } from "./memory-agent.ts";
import { MemoryBook } from "./memory-book.ts";
import { SessionStore } from "./session-store.ts";
import { Summarizer } from "./summarize.ts";

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

describe("HistoryCompactor", () => {
  const KEY = "slack:T1:C2:1700.1";
  async function setUp(messages: BaseMessage[]) {
    const store = await openStore("memory://");
    const agent = new MemoryAgent({
      checkpointer: new MemorySaver(),
      model: undefined,
      book: new MemoryBook(store),
      archive: new KeyvArchiveStore(store),
      sessions: new SessionStore(store),
      recentEntries: 10,
      summariesInPrompt: 5,
      clock: { now: () => 1 },
      logger: silentLogger,
    });
    await agent.invoke(KEY, { control: ControlState.START_SESSION });
    let current = messages;
    const history = {
      reads: 0,
      async conversationState() {
        history.reads += 1;
        return { messages: current };
      },
      async replaceHistory(_key: string, next: BaseMessage[]) {
        current = next;
      },
    };
    const compactor = new HistoryCompactor({
      agent,
      summarizer: new Summarizer(undefined, silentLogger),
      budgetTokens: 120,
      logger: silentLogger,
    });
    return { compactor, history, current: () => current };
  }
  const long = [human("q1"), answer("a1"), human("q2"), answer("a2"), human("q3"), answer("a3")];

  it("does not read the history when the turn reported it under budget", async () => {
    const t = await setUp(long);
    expect(await t.compactor.compactIfOverBudget(KEY, t.history, { knownTokens: 100 })).toBe(false);
    expect(t.history.reads).toBe(0);
    expect(t.current()).toHaveLength(6);
  });

  it("reads and compacts it when the turn reported it over budget, or did not say", async () => {
    const reported = await setUp(long);
    expect(await reported.compactor.compactIfOverBudget(KEY, reported.history, { knownTokens: 150 })).toBe(
      true,
    );
    expect(labels(reported.current())).toEqual(["q3", "a3"]);
    const unreported = await setUp(long);
    expect(await unreported.compactor.compactIfOverBudget(KEY, unreported.history)).toBe(true);
    expect(unreported.history.reads).toBe(1);
  });
});
