import { randomUUID } from "node:crypto";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import { type Clock, createMemory, type Memory, type MemoryConfigInput, type Store } from "@switchboard/core";
import { ScriptedChatModel, type ScriptedModelOptions } from "./scripted-model.ts";
import type { StackExtension } from "./switchboard-stack.ts";

function toolCalls(calls: ReadonlyArray<[string, Record<string, unknown>]>): AIMessage {
  return new AIMessage({
    content: "",
    tool_calls: calls.map(([name, args]) => ({ id: randomUUID(), name, args, type: "tool_call" as const })),
  });
}

const CONTEXT = "The user asks numbered questions about the weekly figures; the bot answers each in turn.";

/**
 * A memory model that does what each memory prompt asks: a turn's entry (with the context document
 * in the same reply when the turn flushes), a context document, or a summary.
 */
export function scriptedMemoryModel(options: ScriptedModelOptions = {}): ScriptedChatModel {
  return new ScriptedChatModel((messages: BaseMessage[]) => {
    const prompt = String(messages[0]?.content ?? "");
    if (prompt.includes("Current operation: ADD_ENTRY")) {
      const user = /Turn to record:\nuser: ([^\n]*)/.exec(prompt)?.[1] ?? "";
      const entry: [string, Record<string, unknown>] = [
        "add_entry",
        { summary: `Noted: ${user.slice(0, 60)}`, answer_summary: "Answered.", tags: ["chat"] },
      ];
      return toolCalls(
        prompt.includes("+ CONTEXT_SYNTHESIS") ? [entry, ["put_context", { content: CONTEXT }]] : [entry],
      );
    }
    if (prompt.includes("Current operation: CONTEXT_SYNTHESIS"))
      return toolCalls([["put_context", { content: CONTEXT }]]);
    return new AIMessage("The user asked a series of numbered questions and the bot answered each of them.");
  }, options);
}

/** Memory wired the way the CLI wires it; `memory()` gives the instance once the stack is open. */
export function memoryExtension(options: {
  clock: Clock;
  config?: MemoryConfigInput;
  model?: ScriptedChatModel;
}) {
  let memory: Memory | undefined;
  const extend = (store: Store, checkpointer: BaseCheckpointSaver, storeUrl: string): StackExtension => {
    const created = createMemory({
      store,
      storeUrl,
      checkpointer,
      model: options.model ?? scriptedMemoryModel(),
      config: options.config ?? {},
      clock: options.clock,
    });
    memory = created;
    return {
      contextFor: created.contextFor,
      tools: created.tools,
      commands: created.commands,
      observers: [created.observer],
      attach: (team) => created.attach(team),
      close: () => created.close(),
    };
  };
  return {
    extend,
    memory(): Memory {
      if (!memory) throw new Error("memory is created when the stack opens");
      return memory;
    },
  };
}
