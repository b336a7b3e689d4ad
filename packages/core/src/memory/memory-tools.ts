import type { RunnableConfig } from "@langchain/core/runnables";
import { type StructuredToolInterface, tool } from "@langchain/core/tools";
import { z } from "zod";
import type { Clock } from "../runtime/clock.ts";
import type { TranscriptLine } from "./archive/archive-store.ts";
import type { MemoryBook } from "./memory-book.ts";
import { extractiveSummary } from "./summarize.ts";

export const ADD_ENTRY = "add_entry";
export const PUT_CONTEXT = "put_context";

/** What the memory graph passes its tools besides the model's arguments. */
export interface MemoryToolContext {
  readonly conversationKey: string;
  /** The turns being recorded, oldest first: each the user's message, then the answer (when there was one). */
  readonly turns: readonly (readonly TranscriptLine[])[];
}

export function memoryToolConfig(context: MemoryToolContext): {
  conversation_key: string;
  turns: readonly (readonly TranscriptLine[])[];
} {
  return { conversation_key: context.conversationKey, turns: context.turns };
}

function toolContext(config: RunnableConfig | undefined): MemoryToolContext {
  const configurable = config?.configurable ?? {};
  const key: unknown = configurable.conversation_key;
  const turns: unknown = configurable.turns;
  if (typeof key !== "string" || key === "")
    throw new Error("memory tools run only inside the memory graph (no conversation_key)");
  return { conversationKey: key, turns: Array.isArray(turns) ? (turns as TranscriptLine[][]) : [] };
}

const entrySchema = z.object({
  turn: z.number().int().min(1).describe("The turn's number, as listed."),
  summary: z.string().min(1).describe("The user's message in one sentence."),
  answer_summary: z.string().min(1).optional().describe("The answer in one sentence."),
  tags: z.array(z.string()).optional().describe("A few short lowercase topic words."),
});

/** The entries of a turn the model left out: its words, first sentences as the summary. */
export async function recordTurnWithoutModel(
  book: MemoryBook,
  key: string,
  turn: readonly TranscriptLine[],
  at: number,
): Promise<number[]> {
  const written: number[] = [];
  for (const { role, text } of turn) {
    const entry = await book.addEntry(key, {
      role,
      summary: extractiveSummary([{ role, text }]),
      raw: text,
      tags: ["unsummarized"],
      at,
    });
    written.push(entry.seq);
  }
  return written;
}

/** The two tools the memory model writes through; the conversation comes from the run, never from the model. */
export function memoryTools(book: MemoryBook, clock: Clock): StructuredToolInterface[] {
  // The words themselves come from the run, never from the model: it writes only the summaries,
  // so recording costs short tool arguments instead of repeating the messages back.
  const addEntry = tool(
    async ({ entries }, config) => {
      const { conversationKey, turns } = toolContext(config);
      const byTurn = new Map(entries.map((entry) => [entry.turn, entry]));
      const written: number[] = [];
      let unsummarized = 0;
      for (const [index, turn] of turns.entries()) {
        const given = byTurn.get(index + 1);
        if (!given) {
          unsummarized += 1;
          written.push(...(await recordTurnWithoutModel(book, conversationKey, turn, clock.now())));
          continue;
        }
        for (const line of turn) {
          const summary = line.role === "bot" ? (given.answer_summary ?? given.summary) : given.summary;
          const entry = await book.addEntry(conversationKey, {
            role: line.role,
            summary,
            raw: line.text,
            tags: given.tags ?? [],
            at: clock.now(),
          });
          written.push(entry.seq);
        }
      }
      const left = unsummarized > 0 ? ` (${unsummarized} turn(s) left out, recorded without summaries)` : "";
      return `Entries ${written.join(", ")} recorded${left}.`;
    },
    {
      name: ADD_ENTRY,
      description:
        "Record the listed turns of the conversation (each user message and its answer) in memory.",
      schema: z.object({ entries: z.array(entrySchema).min(1) }),
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
