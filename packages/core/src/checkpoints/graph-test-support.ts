import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";

/**
 * A small real conversation graph for storage tests. `withSubgraph` puts the replying node
 * inside a compiled subgraph, as agent teams do: every turn then also checkpoints in a
 * namespace of its own. Test files only.
 */
export function conversationGraph(saver: BaseCheckpointSaver, options: { withSubgraph: boolean }) {
  const reply = async (state: typeof MessagesAnnotation.State) => ({
    messages: [new AIMessage(text("answer", state.messages.length))],
  });
  const agent = options.withSubgraph
    ? new StateGraph(MessagesAnnotation)
        .addNode("reply", reply)
        .addEdge(START, "reply")
        .addEdge("reply", END)
        .compile()
    : reply;
  return new StateGraph(MessagesAnnotation)
    .addNode("agent", agent)
    .addEdge(START, "agent")
    .addEdge("agent", END)
    .compile({ checkpointer: saver });
}

/** About 200 characters, different every turn. */
export function text(kind: string, turn: number): string {
  const head = `${kind} ${turn}: `;
  return head + "lorem ipsum dolor sit amet ".repeat(8).slice(0, 200 - head.length);
}

export async function runTurns(
  graph: ReturnType<typeof conversationGraph>,
  threadId: string,
  from: number,
  to: number,
): Promise<BaseMessage[]> {
  let messages: BaseMessage[] = [];
  for (let turn = from; turn < to; turn += 1) {
    const result = await graph.invoke(
      { messages: [new HumanMessage(text("question", turn))] },
      { configurable: { thread_id: threadId } },
    );
    messages = result.messages;
  }
  return messages;
}
