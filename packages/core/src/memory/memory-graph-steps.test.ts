import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { AIMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { MemorySaver } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { silentLogger } from "../runtime/logger.ts";
import { openStore } from "../store/open-store.ts";
import { KeyvArchiveStore } from "./archive/keyv-archive-store.ts";
import { ControlState } from "./control-state.ts";
import { MemoryAgent } from "./memory-agent.ts";
import { MemoryBook } from "./memory-book.ts";
import { SessionStore } from "./session-store.ts";

const KEY = "slack:T1:C2:1700.2";

/** The graph nodes a run starts (each costs LangGraph's task bookkeeping and a LangSmith run tree). */
class NodeRuns extends BaseCallbackHandler {
  name = "node-runs";
  readonly nodes: string[] = [];
  override handleChainStart(
    _chain: unknown,
    _inputs: unknown,
    _runId: string,
    _parentRunId?: string,
    _tags?: string[],
    metadata?: Record<string, unknown>,
    _runType?: string,
    runName?: string,
  ): void {
    if (runName !== undefined && metadata?.langgraph_node === runName) this.nodes.push(runName);
  }
}

describe("memory agent runs", () => {
  it("take one graph step each, model call and tools included, and still record the turn", async () => {
    const store = await openStore("memory://");
    const book = new MemoryBook(store);
    const model = fakeModel().respond(
      new AIMessage({
        content: "",
        tool_calls: [
          { id: "1", name: "add_entry", args: { summary: "asked about invoice 4711", tags: ["billing"] } },
          { id: "2", name: "put_context", args: { content: "The user asks about invoice 4711." } },
        ],
      }),
    );
    const agent = new MemoryAgent({
      checkpointer: new MemorySaver(),
      model,
      book,
      archive: new KeyvArchiveStore(store),
      sessions: new SessionStore(store),
      recentEntries: 10,
      summariesInPrompt: 5,
      clock: { now: () => 1_000_000 },
      logger: silentLogger,
    });
    const started = new NodeRuns();
    await agent.invoke(KEY, { control: ControlState.START_SESSION }, [started]);
    const flushed = new NodeRuns();
    const state = await agent.invoke(
      KEY,
      {
        control: ControlState.PROCESS_MESSAGE_AND_FLUSH,
        turn: [
          { role: "user", text: "where is invoice 4711?" },
          { role: "bot", text: "It was sent on Monday." },
        ],
        messageCount: 2,
      },
      [flushed],
    );
    expect(started.nodes).toEqual(["__start__", "record"]);
    expect(flushed.nodes).toEqual(["__start__", "record"]);
    expect(state.messageCount).toBe(2);
    expect((await book.recentEntries(KEY, 5)).map((entry) => entry.summary)).toContain(
      "asked about invoice 4711",
    );
    expect((await book.context(KEY))?.content).toBe("The user asks about invoice 4711.");
    await store.close();
  });
});
