import { z } from "zod";

/** What a learning is about: the person, the conversation (thread) or the place (channel, room). */
export const LEARNING_SCOPES = ["user", "conversation", "place"] as const;
export type LearningScope = (typeof LEARNING_SCOPES)[number];

/** The `memory.learnings:` section. */
export const learningsConfigSchema = z.strictObject({
  enabled: z
    .boolean()
    .default(true)
    .describe(
      "Agents get `remember` and `forget_learning`, people get `/learnings` and `/forget <id>`, and kept learnings join the prompts of their scope.",
    ),
  scopes: z
    .array(z.enum(LEARNING_SCOPES))
    .min(1)
    .default([...LEARNING_SCOPES])
    .describe(
      "What agents may keep learnings about: `user` (follows the person across threads, and across platforms where `identities` links them), `conversation` (this thread), `place` (the channel or room).",
    ),
  tokenBudget: z
    .number()
    .int()
    .min(50)
    .max(8_000)
    .default(500)
    .describe(
      "Learnings added to a prompt stop at this many (estimated, chars / 4) tokens; newest first, the user's before the conversation's before the place's.",
    ),
  maxPerSubject: z
    .number()
    .int()
    .min(1)
    .max(500)
    .default(50)
    .describe("Learnings kept per person, conversation or place; the oldest goes when a new one is added."),
});

export type LearningsConfig = z.output<typeof learningsConfigSchema>;
