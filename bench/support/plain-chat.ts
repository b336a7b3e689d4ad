/**
 * The plain alternative's start-up, for the startupMs baseline: a process that loads LangGraph,
 * builds the one-node graph with MemorySaver and answers each stdin line, printing `bot> …`.
 */
import { createInterface } from "node:readline";
import { instantModel } from "./instant.ts";
import { plainGraph } from "./plain-graph.ts";

const plain = plainGraph(instantModel());
for await (const line of createInterface({ input: process.stdin, terminal: false })) {
  const state = await plain.graph.invoke(
    { messages: [{ role: "user", content: line }] },
    { configurable: { thread_id: "main" } },
  );
  process.stdout.write(`bot> ${String(state.messages.at(-1)?.content ?? "")}\n`);
}
