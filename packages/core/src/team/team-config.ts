import { z } from "zod";

const agentName = z
  .string()
  .regex(
    /^[a-z][a-z0-9_]{0,39}$/,
    "lowercase letters, digits and _ (it becomes the tool name transfer_to_<name>)",
  );

/** How an agent shows itself in chats (see docs/features/identities.md). */
export const displayConfigSchema = z.strictObject({
  name: z
    .string()
    .trim()
    .min(1)
    .max(80, "at most 80 characters (Slack and Discord cut longer names)")
    .describe("The name people read on the agent's messages (`Billing`)."),
  icon: z
    .string()
    .regex(
      /^(https?:\/\/\S+|mxc:\/\/\S+|:[a-z0-9_+'-]+:)$/i,
      "an image URL (https://…, mxc://…) or a Slack emoji code such as :moneybag:",
    )
    .optional()
    .describe(
      "The agent's picture: an image URL (Slack, Discord; `mxc://` on Matrix), or a Slack emoji code such as `:moneybag:`.",
    ),
});

const display = displayConfigSchema
  .optional()
  .describe(
    "How the agent shows itself: `{ name, icon }` on Slack (needs chat:write.customize) and Discord (through a channel webhook); its name in front of its messages elsewhere. Absent: it speaks as the bot.",
  );

export const specialistConfigSchema = z.strictObject({
  name: agentName
    .refine((name) => name !== "supervisor", "the name supervisor is reserved")
    .refine((name) => name !== "human", "the name human is reserved (a person who took the thread over)")
    .describe(
      "The agent's name: lowercase letters, digits and `_` (the supervisor hands off with the tool `transfer_to_<name>`).",
    ),
  description: z
    .string()
    .min(1, "say what this agent is for: the supervisor hands off by it")
    .describe("What this agent is for: the supervisor picks the specialist by it."),
  prompt: z.string().min(1).describe("The agent's system prompt."),
  model: z
    .string()
    .optional()
    .describe("Model string for this agent (`openai:gpt-4o-mini`…); the main `model` when absent."),
  tools: z
    .array(z.string())
    .default([])
    .describe(
      "Tools this agent always has: names of `tools` entries, MCP tools (`<server>__<tool>`), and the built-ins `find_tools` and `search_memory`.",
    ),
  display,
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
        prompt: z.string().min(1).describe("The supervisor's system prompt."),
        model: z
          .string()
          .optional()
          .describe("Model string for the supervisor; the main `model` when absent."),
        tools: z
          .array(z.string())
          .default([])
          .describe("Tools the supervisor always has (names as for specialists)."),
        display,
      })
      .default({
        prompt:
          "You are the supervisor. Answer briefly, or hand the conversation to the specialist who fits.",
        tools: [],
      })
      .describe("The agent that answers a thread no specialist holds, and hands it to the one who fits."),
    specialists: z
      .array(specialistConfigSchema)
      .default([])
      .describe(
        "The specialists the supervisor hands threads to (the example file has `billing`, `tech_support` and `scheduling`).",
      ),
    maxConsultDepth: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe(
        "How deep consults go (default 1): 1 lets a specialist ask another one a question (`consult`), 2 lets that one ask a third, and so on; 0 turns `consult` off.",
      ),
    humans: humansConfigSchema
      .optional()
      .describe("Handing threads to people (`hand_to_human`, `/human`); absent: its defaults."),
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
  sticky: z
    .boolean()
    .default(true)
    .describe(
      "After a handoff the specialist answers the thread directly until `/supervisor` or `/reset`; `false`: every message goes through the supervisor.",
    ),
});

export const limitsConfigSchema = z.strictObject({
  maxIterations: z.number().int().positive().default(20).describe("Model calls in one turn."),
  maxRepeatedToolCalls: z
    .number()
    .int()
    .positive()
    .default(5)
    .describe("The same tool called this many times in a row is a loop."),
  wallTimeSeconds: z.number().positive().default(600).describe("One turn, end to end."),
  maxInterimMessages: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe(
      "Messages an agent may post while it works in one turn (`send_message`), besides its answer (default 3); 0 turns `send_message` off.",
    ),
});

export type TeamConfig = z.output<typeof teamConfigSchema>;
export type SpecialistConfig = z.output<typeof specialistConfigSchema>;
export type RoutingConfig = z.output<typeof routingConfigSchema>;
export type LimitsConfig = z.output<typeof limitsConfigSchema>;
export type DisplayConfig = z.output<typeof displayConfigSchema>;

/** Defaults of the optional keys above (absent in configuration objects built in code). */
export const DEFAULT_MAX_CONSULT_DEPTH = 1;
export const DEFAULT_MAX_INTERIM_MESSAGES = 3;

export const SUPERVISOR = "supervisor";
/** The thread's "agent" while a person has taken it over: the bot records messages and answers none. */
export const HUMAN = "human";
export type HumansConfig = z.output<typeof humansConfigSchema>;
