import { z } from "zod";
import { learningsConfigSchema } from "../learnings/learnings-config.ts";

/**
 * The `memory:` section. Validated once at the edge (the CLI); everything below receives the
 * parsed `MemoryConfig`. Every key has a default, so `memory: {}` switches the defaults on.
 */
export const memoryConfigSchema = z.strictObject({
  enabled: z
    .boolean()
    .default(true)
    .describe("Off: no memory model calls, no archiving, no context added to prompts."),
  flushEvery: z
    .number()
    .int()
    .min(1)
    .max(100)
    .default(6)
    .describe("Every Nth processed message also rewrites the conversation's context document."),
  idleMinutes: z
    .number()
    .positive()
    .max(7 * 24 * 60)
    .default(30)
    .describe("A conversation quiet for this long has its live session archived and its history cleared."),
  model: z
    .string()
    .min(1)
    .optional()
    .describe(
      "The memory agent's own model (`openai:gpt-4o-mini`…): entries and context documents are routine work a small, cheap model does well. The main model when absent.",
    ),
  summaryModel: z
    .string()
    .min(1)
    .optional()
    .describe("A cheaper model for archive summaries (`openai:gpt-4o-mini`…); the memory model when absent."),
  historyTokenBudget: z
    .number()
    .int()
    .min(500)
    .default(8_000)
    .describe("Live history above this many (estimated) tokens is compacted: older turns become a digest."),
  scope: z
    .enum(["conversation", "user"])
    .default("conversation")
    .describe(
      "Where `search_memory` looks: this conversation's earlier sessions only, or also the asking user's other conversations in the same workspace (never another user's).",
    ),
  recentEntries: z
    .number()
    .int()
    .min(0)
    .max(100)
    .default(10)
    .describe("Entries loaded into the prompt when a session starts."),
  summariesInPrompt: z
    .number()
    .int()
    .min(0)
    .max(50)
    .default(5)
    .describe("Summaries of earlier sessions carried in the prompt."),
  learnings: learningsConfigSchema
    .prefault({})
    .describe(
      "Short facts agents keep on purpose (`remember`, `forget_learning`), per person, conversation or place; listed with `/learnings`, deleted with `/forget <id>`.",
    ),
});

export type MemoryConfig = z.output<typeof memoryConfigSchema>;
export type MemoryConfigInput = z.input<typeof memoryConfigSchema>;

export const DEFAULT_MEMORY_CONFIG: MemoryConfig = memoryConfigSchema.parse({});
