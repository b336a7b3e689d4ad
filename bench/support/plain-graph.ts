import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { HumanMessage } from "@langchain/core/messages";
import { END, MemorySaver, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";

/**
 * The plain alternative every figure is compared with: a one-node LangGraph graph that calls the
 * model with the thread's messages, checkpointed by LangGraph's MemorySaver. No Switchboard.
 */
export function plainGraph(model: BaseChatModel, saver = new MemorySaver()) {
  const graph = new StateGraph(MessagesAnnotation)
    .addNode("agent", async (state: typeof MessagesAnnotation.State) => ({
      messages: [await model.invoke(state.messages)],
    }))
    .addEdge(START, "agent")
    .addEdge("agent", END)
    .compile({ checkpointer: saver });
  return {
    graph,
    saver,
    /** One turn on thread `threadId`; resolves with its wall milliseconds. */
    async turn(threadId: string, text: string): Promise<number> {
      const started = performance.now();
      await graph.invoke({ messages: [new HumanMessage(text)] }, { configurable: { thread_id: threadId } });
      return performance.now() - started;
    },
  };
}

/** Bytes MemorySaver holds: every serialized checkpoint, its metadata and every pending write. */
export function memorySaverBytes(saver: MemorySaver, threadId?: string): number {
  let total = 0;
  for (const [thread, namespaces] of Object.entries(saver.storage)) {
    if (threadId !== undefined && thread !== threadId) continue;
    for (const checkpoints of Object.values(namespaces))
      for (const [checkpoint, metadata] of Object.values(checkpoints))
        total += checkpoint.byteLength + metadata.byteLength;
  }
  for (const [key, writes] of Object.entries(saver.writes)) {
    if (threadId !== undefined && !key.startsWith(JSON.stringify([threadId]).slice(0, -1))) continue;
    for (const [, , value] of Object.values(writes)) total += value.byteLength;
  }
  return total;
}
