import { z } from "zod";

const agentName = z
  .string()
  .regex(
    /^[a-z][a-z0-9_]{0,39}$/,
    "lowercase letters, digits and _ (it becomes the tool name transfer_to_<name>)",
  );

export const specialistConfigSchema = z.strictObject({
  name: agentName
    .refine((name) => name !== "supervisor", "the name supervisor is reserved")
    .refine((name) => name !== "human", "the name human is reserved (a person who took the thread over)"),
  description: z.string().min(1, "say what this agent is for: the supervisor hands off by it"),
  prompt: z.string().min(1),
  /** Model string for this agent; the default model when absent. */
  model: z.string().optional(),
  /** Names of tools from the tool registry. */
  tools: z.array(z.string()).default([]),
});

/** Handing a thread to a person (`hand_to_human`, `/human`). */
export const humansConfigSchema = z.strictObject({
  /**
   * Where people are told that a thread wants one of them: the conversation key of a channel or
   * room (`slack:T0123:C0456`, `discord:<guild>:<channel>`, `matrix:!room:server`). Absent: only
   * the thread says so (and the console lists open handoffs).
   */
  notify: z
    .string()
    .regex(/^[a-z]+:.+/, "a conversation key such as slack:T0123:C0456")
    .optional()
    .describe("where people are told a thread wants one of them (a channel's conversation key)"),
  /** Who the notice names, as the platform writes a mention: `<!subteam^S012>`, `@support`, `<@U123>`. */
  mention: z.string().optional().describe("who the notice names, written as the platform writes a mention"),
  /** A thread nobody handed back is the bot's again after this long, with a line saying so. */
  releaseAfterMinutes: z
    .number()
    .positive()
    .default(240)
    .describe("a thread is handed back to the bot after this long"),
});

export const teamConfigSchema = z
  .strictObject({
    supervisor: z
      .strictObject({
        prompt: z.string().min(1),
        model: z.string().optional(),
        tools: z.array(z.string()).default([]),
      })
      .default({
        prompt:
          "You are the supervisor. Answer briefly, or hand the conversation to the specialist who fits.",
        tools: [],
      }),
    specialists: z.array(specialistConfigSchema).default([]),
    /** Handing threads to people; read by the humans room (absent: its defaults). */
    humans: humansConfigSchema.optional(),
  })
  .superRefine((team, context) => {
    const seen = new Set<string>();
    for (const [index, specialist] of team.specialists.entries()) {
      if (seen.has(specialist.name)) {
        context.addIssue({
          code: "custom",
          path: ["specialists", index, "name"],
          message: `duplicate agent name ${specialist.name}`,
        });
      }
      seen.add(specialist.name);
    }
  });

export const routingConfigSchema = z.strictObject({
  /** When off, every message goes through the supervisor. */
  sticky: z.boolean().default(true),
});

export const limitsConfigSchema = z.strictObject({
  /** Model calls in one turn. */
  maxIterations: z.number().int().positive().default(20),
  /** The same tool called this many times in a row is a loop. */
  maxRepeatedToolCalls: z.number().int().positive().default(5),
  wallTimeSeconds: z.number().positive().default(600),
});

export type TeamConfig = z.output<typeof teamConfigSchema>;
export type SpecialistConfig = z.output<typeof specialistConfigSchema>;
export type RoutingConfig = z.output<typeof routingConfigSchema>;
export type LimitsConfig = z.output<typeof limitsConfigSchema>;

export const SUPERVISOR = "supervisor";
/** The thread's "agent" while a person has taken it over: the bot records messages and answers none. */
export const HUMAN = "human";
export type HumansConfig = z.output<typeof humansConfigSchema>;
