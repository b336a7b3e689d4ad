import { z } from "zod";

const agentName = z
  .string()
  .regex(
    /^[a-z][a-z0-9_]{0,39}$/,
    "lowercase letters, digits and _ (it becomes the tool name transfer_to_<name>)",
  );

export const specialistConfigSchema = z.strictObject({
  name: agentName.refine((name) => name !== "supervisor", "the name supervisor is reserved"),
  description: z.string().min(1, "say what this agent is for: the supervisor hands off by it"),
  prompt: z.string().min(1),
  /** Model string for this agent; the default model when absent. */
  model: z.string().optional(),
  /** Names of tools from the tool registry. */
  tools: z.array(z.string()).default([]),
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
