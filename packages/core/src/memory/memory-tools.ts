import type { RunnableConfig } from "@langchain/core/runnables";
import { type StructuredToolInterface, tool } from "@langchain/core/tools";
import { z } from "zod";
import type { Clock } from "../runtime/clock.ts";
import type { MemoryBook, SpeakerRole } from "./memory-book.ts";

export const ADD_ENTRY = "add_entry";
export const PUT_CONTEXT = "put_context";

/** What the memory graph passes its tools besides the model's arguments. */
export interface MemoryToolContext {
  readonly conversationKey: string;
  readonly role: SpeakerRole;
}

export function memoryToolConfig(context: MemoryToolContext): {
  conversation_key: string;
  message_role: SpeakerRole;
} {
  return { conversation_key: context.conversationKey, message_role: context.role };
}

function toolContext(config: RunnableConfig | undefined): MemoryToolContext {
  const configurable = config?.configurable ?? {};
  const key: unknown = configurable.conversation_key;
  const role: unknown = configurable.message_role;
  if (typeof key !== "string" || key === "")
    throw new Error("memory tools run only inside the memory graph (no conversation_key)");
  return { conversationKey: key, role: role === "bot" ? "bot" : "user" };
}

/** The two tools the memory model writes through; the conversation comes from the run, never from the model. */
export function memoryTools(book: MemoryBook, clock: Clock): StructuredToolInterface[] {
  const addEntry = tool(
    async ({ summary, raw_entry, tags }, config) => {
      const { conversationKey, role } = toolContext(config);
      const entry = await book.addEntry(conversationKey, {
        role,
        summary,
        raw: raw_entry,
        tags: tags ?? [],
        at: clock.now(),
      });
      return `Entry ${entry.seq} recorded.`;
    },
    {
      name: ADD_ENTRY,
      description: "Record one message of the conversation in memory.",
      schema: z.object({
        summary: z.string().min(1).describe("One or two sentences capturing the message's key information."),
        raw_entry: z.string().describe("The message text, unchanged."),
        tags: z.array(z.string()).optional().describe("A few short lowercase topic words."),
      }),
    },
  );
  const putContext = tool(
    async ({ content }, config) => {
      const { conversationKey } = toolContext(config);
      await book.putContext(conversationKey, content, clock.now());
      return "Context document saved.";
    },
    {
      name: PUT_CONTEXT,
      description: "Replace the conversation's context document with a new synthesized version.",
      schema: z.object({ content: z.string().min(1).describe("The whole new context document.") }),
    },
  );
  return [addEntry, putContext];
}
