import type { RunnableConfig } from "@langchain/core/runnables";
import { type StructuredToolInterface, tool } from "@langchain/core/tools";
import { z } from "zod";
import type { Clock } from "../runtime/clock.ts";
import type { TranscriptLine } from "./archive/archive-store.ts";
import type { MemoryBook } from "./memory-book.ts";

export const ADD_ENTRY = "add_entry";
export const PUT_CONTEXT = "put_context";

/** What the memory graph passes its tools besides the model's arguments. */
export interface MemoryToolContext {
  readonly conversationKey: string;
  /** The turn being recorded: the user's message, then the answer (when there was one). */
  readonly turn: readonly TranscriptLine[];
}

export function memoryToolConfig(context: MemoryToolContext): {
  conversation_key: string;
  turn_lines: readonly TranscriptLine[];
} {
  return { conversation_key: context.conversationKey, turn_lines: context.turn };
}

function toolContext(config: RunnableConfig | undefined): MemoryToolContext {
  const configurable = config?.configurable ?? {};
  const key: unknown = configurable.conversation_key;
  const turn: unknown = configurable.turn_lines;
  if (typeof key !== "string" || key === "")
    throw new Error("memory tools run only inside the memory graph (no conversation_key)");
  return { conversationKey: key, turn: Array.isArray(turn) ? (turn as TranscriptLine[]) : [] };
}

/** The two tools the memory model writes through; the conversation comes from the run, never from the model. */
export function memoryTools(book: MemoryBook, clock: Clock): StructuredToolInterface[] {
  // The words themselves come from the run, never from the model: it writes only the summaries,
  // so a turn costs one short tool call instead of repeating both messages back.
  const addEntry = tool(
    async ({ summary, answer_summary, tags }, config) => {
      const { conversationKey, turn } = toolContext(config);
      const written = await book.addEntries(
        conversationKey,
        turn.map((line) => ({
          role: line.role,
          summary: line.role === "bot" ? (answer_summary ?? summary) : summary,
          raw: line.text,
          tags: tags ?? [],
          at: clock.now(),
        })),
      );
      return `Entries ${written.map((entry) => entry.seq).join(", ")} recorded.`;
    },
    {
      name: ADD_ENTRY,
      description: "Record this turn of the conversation (the user's message and the answer) in memory.",
      schema: z.object({
        summary: z
          .string()
          .min(1)
          .describe("One or two sentences with the key information of the user's message."),
        answer_summary: z
          .string()
          .min(1)
          .optional()
          .describe("One or two sentences with the key information of the answer."),
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
