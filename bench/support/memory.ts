import { randomUUID } from "node:crypto";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import { type Clock, createMemory, type Memory, type Store } from "@switchboard/core";
import type { MemoryConfigInput } from "@switchboard/core/config";
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
 * A memory model that does what each memory prompt asks: entries for the listed turns with the
 * context document in the same reply, a context document alone, or a summary.
 */
export function scriptedMemoryModel(options: ScriptedModelOptions = {}): ScriptedChatModel {
  return new ScriptedChatModel((messages: BaseMessage[]) => {
    const prompt = String(messages[0]?.content ?? "");
    if (prompt.includes("Current operation: ADD_ENTRY")) {
      const turns = [...prompt.matchAll(/Turn (\d+):\nuser: ([^\n]*)/g)];
      const entries = turns.map(([, turn, user]) => ({
        turn: Number(turn),
        summary: `Noted: ${(user ?? "").slice(0, 60)}`,
        answer_summary: "Answered.",
        tags: ["chat"],
      }));
      return toolCalls([
        ["add_entry", { entries }],
        ["put_context", { content: CONTEXT }],
      ]);
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
      beforeRun: created.beforeRun,
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
