import { randomUUID } from "node:crypto";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import { type Clock, createMemory, type Memory, type MemoryConfigInput, type Store } from "@switchboard/core";
import { ScriptedChatModel } from "./scripted-model.ts";
import type { StackExtension } from "./switchboard-stack.ts";

function toolCall(name: string, args: Record<string, unknown>): AIMessage {
  return new AIMessage({ content: "", tool_calls: [{ id: randomUUID(), name, args, type: "tool_call" }] });
}

/** A memory model that does what each memory prompt asks: an entry, a context document, or a summary. */
export function scriptedMemoryModel(): ScriptedChatModel {
  return new ScriptedChatModel((messages: BaseMessage[]) => {
    const prompt = String(messages[0]?.content ?? "");
    if (prompt.includes("Current operation: ADD_ENTRY")) {
      const raw = /Message to record:\n(?:user|bot): ([\s\S]*?)\n\nRules:/.exec(prompt)?.[1] ?? "";
      return toolCall("add_entry", { summary: `Noted: ${raw.slice(0, 60)}`, raw_entry: raw, tags: ["chat"] });
    }
    if (prompt.includes("Current operation: CONTEXT_SYNTHESIS"))
      return toolCall("put_context", {
        content: "The user asks numbered questions about the weekly figures; the bot answers each in turn.",
      });
    return new AIMessage("The user asked a series of numbered questions and the bot answered each of them.");
  });
}

/** Memory wired the way the CLI wires it; `memory()` gives the instance once the stack is open. */
export function memoryExtension(options: { clock: Clock; config?: MemoryConfigInput }) {
  let memory: Memory | undefined;
  const extend = (store: Store, checkpointer: BaseCheckpointSaver, storeUrl: string): StackExtension => {
    const created = createMemory({
      store,
      storeUrl,
      checkpointer,
      model: scriptedMemoryModel(),
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
